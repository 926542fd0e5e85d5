package io.sandboxd.conformance.checks;

import io.sandboxd.conformance.suite.Check;
import io.sandboxd.conformance.suite.CheckId;
import java.util.EnumMap;
import java.util.Map;

/** Every check implementation, by id. */
public final class Registry {
    private Registry() {}

    public static Map<CheckId, Check> all() {
        Map<CheckId, Check> m = new EnumMap<>(CheckId.class);
        ProcessChecks.register(m);
        InteractiveChecks.register(m);
        FileChecks.register(m);
        RuntimeChecks.register(m);
        DurableChecks.register(m);
        WatchChecks.register(m);
        CodeChecks.register(m);
        FileOpsChecks.register(m);
        return m;
    }
}
