package io.sandboxd.daemon.rest;

import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.logging.JsonText;
import java.nio.charset.StandardCharsets;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Issue 21: the generator's escaping ({@link Json}) is the hand-written one's ({@link JsonText},
 * Go's encoder) for any Java string, in values and in property names: control characters,
 * {@code <>&}, U+007F, U+2028/9, lone and paired surrogates (also where a pair straddles the
 * generator's internal segments), and everything else.
 */
class JsonEscapingPropertyTest {
    @Property(tries = 1500)
    void valuesAndNamesEscapeAsBefore(@ForAll("text") String s) {
        assertSameEscaping(s);
    }

    @Example
    void surrogatesAndTheirNeighbours() {
        for (String s : new String[] {
            "\uD83D\uDE00",
            "\uD83D",
            "\uDE00",
            "\uDE00\uD83D",
            "\uD83D\uD83D\uDE00",
            "a\uDE00\uDE00b",
            "\uD83D\uDE00\uDE00"
        }) {
            assertSameEscaping(s);
        }
    }

    @Example
    void pairsAcrossTheGeneratorsSegments() {
        for (int at = 0; at < 9000; at += at < 900 || (at > 1100 && at < 7900) ? 97 : 1) {
            assertSameEscaping("a".repeat(at) + "\uD83D\uDE00" + "<".repeat(at % 13) + "\uD800");
            assertSameEscaping("\u00e9".repeat(at) + "\uD83D\uDE00\u2028");
        }
    }

    @Provide
    Arbitrary<String> text() {
        return Arbitraries.strings()
                .withChars("\"\\/<>&\b\f\n\r\t\u0000\u001f\u007f\u0080\u00ff\u2028\u2029\ufffd\ufeff")
                .withCharRange('\u0000', '\u0020')
                .withCharRange(' ', '~')
                .withCharRange('\uD800', '\uDFFF')
                .withCharRange('\u0000', '\uFFFF')
                .ofMaxLength(300);
    }

    private static void assertSameEscaping(String s) {
        assertThat(text(Json.error(s, s))).isEqualTo(text(HandWrittenJson.error(s, s)));
        StringBuilder before = new StringBuilder("{");
        JsonText.appendString(before, s);
        before.append(':');
        JsonText.appendString(before, s);
        before.append("}\n");
        byte[] now = Json.bytes(g -> {
            g.writeStartObject();
            g.writeStringProperty(s, s);
            g.writeEndObject();
        });
        assertThat(text(now)).isEqualTo(text(before.toString().getBytes(StandardCharsets.UTF_8)));
    }

    private static String text(byte[] utf8) {
        return new String(utf8, StandardCharsets.ISO_8859_1);
    }
}
