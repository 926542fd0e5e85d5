package io.sandboxd.daemon.code;

/**
 * What List says about a context at one moment.
 *
 * @param kernelPid 0 when dead
 * @param kernelRssBytes the kernel process's VmRSS, 0 when dead or unreadable
 */
public record ContextSnapshot(
        String id,
        String language,
        String kernel,
        String cwd,
        ContextState state,
        long createdMillis,
        long lastUsedMillis,
        long kernelPid,
        long kernelRssBytes,
        int queued,
        long badSignatures) {

    public enum ContextState {
        STARTING,
        IDLE,
        BUSY,
        DEAD
    }
}
