package io.sandboxd.controller.app;

import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Flags upstream's binary defines that have no counterpart here. They are accepted, so manifests
 * written for upstream start unchanged, and each one given prints one warning line saying it has no
 * effect (rather than failing the parse, or being silently ignored).
 */
final class NoEffectFlags {
    /** An upstream flag: {@code bool} flags take no value or {@code =true/false}; the others one value. */
    record Flag(String name, boolean bool, String why) {}

    private final List<Flag> flags;

    NoEffectFlags(List<Flag> flags) {
        this.flags = List.copyOf(flags);
    }

    /** Declares every flag on {@code spec}, in the help under its own heading. */
    void addTo(CommandSpec spec) {
        for (Flag f : flags) {
            spec.addOption(OptionSpec.builder(f.name())
                    .type(f.bool() ? Boolean.class : String.class)
                    .arity(f.bool() ? "0..1" : "1")
                    .paramLabel(f.bool() ? "" : "<value>")
                    .description("Upstream flag, accepted; no effect here: " + f.why() + ".")
                    .build());
        }
    }

    /** One warning line per flag given on the command line, in the order they are declared. */
    List<String> warnings(CommandLine.ParseResult parsed) {
        List<String> out = new ArrayList<>();
        for (Flag f : flags) {
            if (parsed.hasMatchedOption(f.name())) {
                out.add("warning: " + f.name() + " has no effect here (accepted for upstream compatibility; " + f.why()
                        + ")");
            }
        }
        return out;
    }
}
