package io.sandboxd.conformance.fake;

/** One deliberate deviation from runtime-contract §4.1 that {@link DurableProxy} makes. */
public enum DurableBreakage {
    /** Start sends no started event. */
    STARTED_MISSING,
    /** A detached process is killed when its starting stream ends. */
    DETACH_IGNORED,
    /** Without detach, the end of the starting stream does not kill the process. */
    NO_KILL_ON_CANCEL,
    /** A Start with a live tag is accepted (the tag is dropped). */
    TAG_NOT_UNIQUE,
    /** process.v1 WriteStdin, SendSignal and ResizeTTY answer NOT_FOUND for ids of the durable service. */
    IDS_SEPARATE,
    /** process.v1 Start processes are neither listed nor attachable. */
    V1_NOT_LISTED,
    /** Output events after the first byte claim an offset one too far. */
    OFFSETS_SHIFTED,
    /** Attach ignores the offsets asked for and replays from 0. */
    OFFSET_IGNORED,
    /** An offset beyond what was written is INVALID_ARGUMENT instead of OUT_OF_RANGE. */
    OUT_OF_RANGE_AS_INVALID,
    /** NOT_FOUND is reported as INTERNAL. */
    NOT_FOUND_AS_INTERNAL,
    /** Gap events are dropped. */
    GAP_DROPPED,
    /** Heartbeat events are dropped. */
    NO_HEARTBEAT,
    /** Every durable stream waits for the slowest client. */
    STALL_COUPLED,
    /** List and Get leave the tag out. */
    LIST_WITHOUT_TAG,
    /** List and Get leave the tree's usage out. */
    NO_TREE,
    /** Death by signal is reported as an exit. */
    SIGNAL_AS_EXITED,
    /** A server-side timeout is reported as a plain signal. */
    TIMEOUT_NOT_REPORTED,
    /** process.v1 ResizeTTY answers OK and does nothing. */
    PTY_RESIZE_LOST
}
