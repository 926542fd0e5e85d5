package io.sandboxd.daemon.cli;

import java.util.Locale;
import java.util.Map;
import picocli.CommandLine;

/**
 * Every option's default comes from its {@code SANDBOXD_*} variable when set ({@code --grpc-port}
 * reads {@code SANDBOXD_GRPC_PORT}); an explicit flag still wins (runtime-contract §3). The environment is
 * passed in, so tests need not mutate the process environment.
 */
final class EnvDefaults implements CommandLine.IDefaultValueProvider {
    private final Map<String, String> env;

    EnvDefaults(Map<String, String> env) {
        this.env = env;
    }

    static String variableFor(String longOption) {
        return "SANDBOXD_"
                + longOption.replaceFirst("^--", "").toUpperCase(Locale.ROOT).replace('-', '_');
    }

    @Override
    public String defaultValue(CommandLine.Model.ArgSpec argSpec) {
        if (argSpec instanceof CommandLine.Model.OptionSpec o
                && o.longestName().startsWith("--")
                && !o.usageHelp()
                && !o.versionHelp()) {
            String v = env.get(variableFor(o.longestName()));
            if (v != null && !v.isEmpty()) {
                return v;
            }
        }
        return null;
    }
}
