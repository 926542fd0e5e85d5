package io.sandboxd.daemon.process;

import java.nio.file.Path;
import java.util.List;

/**
 * A validated, resolved command, ready to spawn.
 *
 * @param executable  absolute path of the binary to exec
 * @param argv        the arguments as requested ({@code argv[0]} as the caller wrote it)
 * @param environment the complete child environment
 * @param workingDirectory real directory inside the root
 * @param terminal    null for pipe mode
 */
public record LaunchPlan(
        Path executable,
        List<String> argv,
        ChildEnvironment environment,
        Path workingDirectory,
        TerminalSize terminal) {

    public SpawnMode mode() {
        return terminal == null ? SpawnMode.PIPE : SpawnMode.PTY;
    }
}
