package io.sandboxd.client;

/** Receives a watch's events on the watch's own thread ({@link SandboxdClient#watch(String, WatchOptions, WatchListener)}). */
public interface WatchListener {
    void onEvent(WatchEvent event);

    /** The watch ended: {@code failure} is null after a final {@code error} event or {@link FileWatch#close()}. */
    default void onEnd(RuntimeException failure) {}
}
