package io.sandboxd.controller.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/** {@link Expiry#parse}'s formatter-free path reads exactly what {@link OffsetDateTime#parse} reads. */
class ExpiryParseTest {
    private static Instant reference(String s) {
        try {
            return OffsetDateTime.parse(s).toInstant();
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    @Property(tries = 5000)
    void everyUtcSecondReadsAsTheFormatterReadsIt(@ForAll("seconds") long epochSecond) {
        String s = Instant.ofEpochSecond(epochSecond).toString();
        assertThat(s).hasSize(20);
        assertThat(Expiry.utcSeconds(s)).isEqualTo(Instant.ofEpochSecond(epochSecond));
        assertThat(Expiry.parse(s)).isEqualTo(reference(s));
    }

    @Provide
    Arbitrary<Long> seconds() {
        // years 0000-9999: the four-digit years RFC 3339 allows
        return Arbitraries.longs().between(-62_167_219_200L, 253_402_300_799L);
    }

    /** Strings of the right shape with any digits (Feb 30, hour 24, second 60...) and a stray character. */
    @Property(tries = 5000)
    void anyStringOfThatShapeReadsAsTheFormatterReadsIt(@ForAll("shaped") String s) {
        assertThat(Expiry.parse(s)).as(s).isEqualTo(reference(s));
        Instant fast = Expiry.utcSeconds(s);
        if (fast != null) {
            assertThat(fast).as(s).isEqualTo(reference(s));
        }
    }

    @Provide
    Arbitrary<String> shaped() {
        Arbitrary<String> d2 = Arbitraries.integers().between(0, 99).map(i -> String.format("%02d", i));
        Arbitrary<String> y = Arbitraries.integers().between(0, 9999).map(i -> String.format("%04d", i));
        Arbitrary<String> date = Combinators.combine(y, d2, d2).as((a, b, c) -> a + "-" + b + "-" + c);
        Arbitrary<String> time = Combinators.combine(d2, d2, d2).as((a, b, c) -> a + ":" + b + ":" + c);
        Arbitrary<String> good = Combinators.combine(date, time).as((a, b) -> a + "T" + b + "Z");
        Arbitrary<String> broken = Combinators.combine(
                        good, Arbitraries.integers().between(0, 19), Arbitraries.chars())
                .as((g, i, c) -> g.substring(0, i) + c + g.substring(i + 1));
        return Arbitraries.oneOf(good, broken);
    }

    @Test
    void otherFormsGoThroughTheFormatter() {
        assertThat(Expiry.utcSeconds("2026-01-01T00:00:00+02:00")).isNull();
        assertThat(Expiry.parse("2026-01-01T00:00:00+02:00")).isEqualTo(Instant.parse("2025-12-31T22:00:00Z"));
        assertThat(Expiry.utcSeconds("2026-01-01T00:00:00.5Z")).isNull();
        assertThat(Expiry.parse("2026-01-01T00:00:00.5Z")).isEqualTo(Instant.parse("2026-01-01T00:00:00.500Z"));
        assertThat(Expiry.parse("2024-02-29T23:59:59Z")).isEqualTo(Instant.parse("2024-02-29T23:59:59Z"));
        assertThat(Expiry.parse("2023-02-29T23:59:59Z")).isNull();
        assertThat(Expiry.parse("not a time")).isNull();
        assertThat(Expiry.parse(null)).isNull();
    }
}
