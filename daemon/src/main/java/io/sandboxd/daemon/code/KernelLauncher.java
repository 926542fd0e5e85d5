package io.sandboxd.daemon.code;

import io.sandboxd.daemon.errors.ErrorKind;
import io.sandboxd.daemon.errors.SandboxException;
import io.sandboxd.daemon.process.ManagedProcess;
import io.sandboxd.daemon.process.ProcessCore;
import io.sandboxd.daemon.process.ProcessRequest;
import io.sandboxd.daemon.process.os.ChildCredentials;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * Starts kernel processes: writes the connection file (0600, in the daemon's kernel directory),
 * then spawns the kernelspec's argv through the process core, so a kernel gets the same
 * confinement, environment merge, {@code --run-as-user}, own session, process cap and shutdown as
 * every other process.
 */
final class KernelLauncher {
    /** A started kernel process, the file it was given, and the tail of what it writes. */
    record Spawned(ManagedProcess process, ConnectionFile file, KernelOutputTail output) {}

    private final ProcessCore core;
    private final KernelDirectory directory;
    private final ChildCredentials runAs;

    KernelLauncher(ProcessCore core, KernelDirectory directory, ChildCredentials runAs) {
        this.core = core;
        this.directory = directory;
        this.runAs = runAs;
    }

    /**
     * @param fileName the connection file's name (unique per kernel)
     * @throws SandboxException what the process core throws for the cwd, env, binary or cap;
     *     FAILED_PRECONDITION when a --run-as-user kernel could not read its connection file
     */
    Spawned spawn(String fileName, Kernelspec spec, String cwd, Map<String, String> env) throws SandboxException {
        directory.checkReachableBy(runAs);
        ConnectionFile file;
        try {
            file = ConnectionFile.create(directory.path().resolve(fileName), runAs);
        } catch (IOException e) {
            throw new SandboxException(ErrorKind.INTERNAL, "cannot write the kernel's connection file in --state-dir");
        }
        Map<String, String> merged = new HashMap<>(spec.env());
        merged.putAll(env);
        KernelOutputTail output = new KernelOutputTail();
        try {
            ManagedProcess p = core.startUnlisted(
                    new ProcessRequest(spec.command(file.path()), merged, cwd, null), "code-context", output);
            return new Spawned(p, file, output);
        } catch (SandboxException | RuntimeException e) {
            file.delete();
            throw e;
        }
    }

    /** Deletes whatever connection files of context {@code contextId} are left (on Delete). */
    void forget(String contextId) {
        directory.deleteFiles(contextId + "-");
    }
}
