package io.sandboxd.conformance.suite;

public enum Outcome {
    PASS,
    FAIL,
    SKIP
}
