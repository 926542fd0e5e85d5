package io.sandboxd.daemon.process;

import java.util.List;
import java.util.Map;

/**
 * What a caller asks to run (runtime-contract §1.2), transport-neutral.
 *
 * @param command argv; {@code command[0]} without {@code /} is looked up on the daemon's PATH
 * @param env     variables merged over the daemon's environment (request wins)
 * @param cwd     null or empty for the root; relative or re-rooted absolute otherwise
 * @param terminal null for pipe mode, else the initial PTY size
 */
public record ProcessRequest(List<String> command, Map<String, String> env, String cwd, TerminalSize terminal) {
    public ProcessRequest {
        command = List.copyOf(command);
        env = Map.copyOf(env);
    }
}
