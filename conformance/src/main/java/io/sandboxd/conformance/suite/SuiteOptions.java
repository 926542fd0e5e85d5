package io.sandboxd.conformance.suite;

import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * What the suite knows about the runtime under test besides its addresses: values of the runtime's
 * own settings that some checks need (unset means "unknown", and those checks use the
 * runtime-contract default or skip with the reason).
 */
public record SuiteOptions(
        String grpcTarget,
        URI restBase,
        String token,
        OptionalInt streamChunkSize,
        int executeOutputLimit,
        String metadataEnvPrefix,
        boolean allowRootWipe,
        Optional<Duration> attachHeartbeat) {}
