package io.sandboxd.daemon.process;

import io.sandboxd.daemon.errors.ErrorKind;
import io.sandboxd.daemon.errors.SandboxException;
import io.sandboxd.daemon.process.os.ChildCredentials;
import io.sandboxd.daemon.process.os.ExecveLimits;
import io.sandboxd.daemon.process.os.PipeSpawner;
import io.sandboxd.daemon.process.os.PtyTerminal;
import java.io.IOException;

/**
 * Spawns a resolved plan in its own session and hands it to its {@link ManagedProcess}: pipe
 * mode through posix_spawn ({@link PipeSpawner}), PTY mode through pty4j ({@link PtyTerminal}).
 */
final class ProcessLauncher {
    private final ProcessRuntime runtime;

    ProcessLauncher(ProcessRuntime runtime) {
        this.runtime = runtime;
    }

    /**
     * @param id        the Start id, 0 for Execute
     * @param withStdin pipe mode: a stdin pipe, else /dev/null (a terminal always takes input)
     */
    ManagedProcess launch(int id, LaunchPlan plan, boolean withStdin, ProcessEndListener ends) throws SandboxException {
        ChildCredentials as = runtime.credentials();
        if (plan.mode() == SpawnMode.PTY) {
            if (!ExecveLimits.ofThisProcess()
                    .fits(plan.argv(), plan.environment().encoded())) {
                throw new SandboxException(
                        ErrorKind.INVALID_ARGUMENT, "failed to start command with PTY: " + ExecveLimits.TOO_LONG);
            }
            PtyTerminal t = as.spawnAs(() -> {
                try {
                    return PtyTerminal.spawn(
                            plan.executable(),
                            plan.argv(),
                            plan.environment().asMap(),
                            plan.workingDirectory(),
                            plan.terminal().cols(),
                            plan.terminal().rows(),
                            as);
                } catch (IOException | LinkageError | IllegalStateException e) {
                    throw startFailure("failed to start command with PTY", e);
                }
            });
            return new ManagedProcess(id, t, runtime, ends);
        }
        PipeSpawner.Spawned spawned;
        String prefix = id == 0 ? "failed to execute command" : "failed to start command";
        try {
            spawned = as.spawnAs(() -> PipeSpawner.spawn(
                    plan.executable(),
                    plan.argv(),
                    plan.environment().encoded(),
                    plan.workingDirectory(),
                    withStdin,
                    runtime.spawnAttributes(),
                    prefix));
        } catch (LinkageError | IllegalStateException e) {
            throw new SandboxException(
                    ErrorKind.INTERNAL,
                    prefix + ": process support unavailable (" + e.getClass().getSimpleName() + ")");
        }
        return new ManagedProcess(id, spawned, runtime, ends);
    }

    /**
     * Out of file descriptors is a resource limit the client can wait out, not a daemon fault;
     * anything else stays INTERNAL. The library's message is not passed on: it names host paths.
     */
    private static SandboxException startFailure(String prefix, Throwable e) {
        String m = String.valueOf(e.getMessage());
        if (m.contains("error=24") || m.contains("Too many open files") || m.contains("errno 24")) {
            return PipeSpawner.descriptorsExhausted(prefix);
        }
        return new SandboxException(ErrorKind.INTERNAL, prefix);
    }
}
