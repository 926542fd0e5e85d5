package io.sandboxd.conformance.suite;

import java.time.Duration;

/** What one check reported. {@code message} is empty for a pass, the reason for a skip, the diagnosis for a failure. */
public record CheckResult(CheckId id, Outcome outcome, String message, Duration duration) {}
