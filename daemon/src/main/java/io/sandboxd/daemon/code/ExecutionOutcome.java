package io.sandboxd.daemon.code;

/**
 * How an execution ended (runtime-contract §4.4).
 *
 * @param executionCount the kernel's counter for it, 0 if it never ran
 * @param message        why, for anything but OK and ERROR
 * @param oversizedMessages kernel messages of this execution lost to {@code --code-max-message-size}
 */
public record ExecutionOutcome(State state, int executionCount, String message, int oversizedMessages) {
    public enum State {
        OK,
        ERROR,
        ABORTED,
        TIMED_OUT,
        KERNEL_DIED
    }
}
