package io.sandboxd.daemon.cli;

import io.sandboxd.api.GoDuration;
import java.time.Duration;
import picocli.CommandLine;

/** Flags take durations in upstream's Go spelling ({@link GoDuration}). */
public final class GoDurationConverter implements CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
        try {
            return GoDuration.parse(value);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.TypeConversionException(e.getMessage());
        }
    }
}
