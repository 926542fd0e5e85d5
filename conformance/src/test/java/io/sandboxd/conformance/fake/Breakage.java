package io.sandboxd.conformance.fake;

/** One deliberate deviation from the runtime contract (docs/runtime-contract.md) that the fake runtime can be told to make. */
public enum Breakage {
    /** REST: a missing file answers 400 instead of 404. */
    MISSING_IS_400,
    /** REST: error bodies are text/plain, not {code, message} JSON. */
    NON_JSON_ERRORS,
    /** REST: PUT answers 201 Created instead of 204. */
    PUT_201,
    /** REST: listings in reverse order. */
    UNSORTED_LISTING,
    /** REST: modified_at with nanoseconds. */
    FRACTIONAL_TIMESTAMPS,
    /** REST: a path with %2F gets 400. */
    ENCODED_SLASH_REJECTED,
    /** REST: HEAD answers 200 for a missing file. */
    HEAD_200_ON_MISSING,
    /** REST: the mode query is ignored (files get 0644). */
    MODE_IGNORED,
    /** gRPC: Start sends no init event. */
    NO_INIT,
    /** gRPC: Start sends another stdout event after exit. */
    EXIT_NOT_LAST,
    /** gRPC: stderr bytes are sent as stdout events. */
    STDERR_AS_STDOUT,
    /** gRPC: NOT_FOUND conditions are reported as INTERNAL. */
    NOT_FOUND_AS_INTERNAL,
    /** gRPC: the pty request is ignored (pipes instead). */
    PTY_IGNORED,
    /** gRPC: a signal sent within 500 ms of the start is answered OK but never delivered. */
    EARLY_SIGNAL_LOST,
    /** gRPC: a relative cwd with '..' may leave the root. */
    CWD_ESCAPES,
    /** gRPC: with a pty, none of the process's output is sent (a different defect from not merging stderr). */
    PTY_OUTPUT_LOST
}
