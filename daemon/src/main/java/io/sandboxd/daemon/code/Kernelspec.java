package io.sandboxd.daemon.code;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * An installed Jupyter kernelspec: {@code <dir>/<name>/kernel.json}.
 *
 * @param argv       the command, with {@code {connection_file}} (and {@code {resource_dir}}) to fill in
 * @param language   as the spec says, e.g. "python"
 * @param interruptBySignal true for {@code interrupt_mode} "signal" (the default): SIGINT to the
 *                   kernel's process group; false for "message": interrupt_request on control
 * @param env        variables the spec sets for the kernel
 * @param resourceDir the spec's directory
 */
public record Kernelspec(
        String name,
        List<String> argv,
        String displayName,
        String language,
        boolean interruptBySignal,
        Map<String, String> env,
        Path resourceDir) {

    /** The argv with the connection file and resource dir filled in. */
    List<String> command(Path connectionFile) {
        return argv.stream()
                .map(a -> a.replace("{connection_file}", connectionFile.toString())
                        .replace("{resource_dir}", resourceDir.toString()))
                .toList();
    }
}
