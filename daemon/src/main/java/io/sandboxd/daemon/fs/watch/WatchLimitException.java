package io.sandboxd.daemon.fs.watch;

/** A watch limit was reached: ours (a flag) or the kernel's (a sysctl); {@link #limit()} names it. */
final class WatchLimitException extends Exception {
    private final String limit;

    /**
     * @param limit   the flag or sysctl, e.g. {@code --watch-max-directories} or {@code fs.inotify.max_user_watches}
     * @param message the whole client-facing sentence, naming the limit and its value
     */
    WatchLimitException(String limit, String message) {
        super(message, null, false, false);
        this.limit = limit;
    }

    String limit() {
        return limit;
    }
}
