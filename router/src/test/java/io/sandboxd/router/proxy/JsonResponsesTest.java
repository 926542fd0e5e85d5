package io.sandboxd.router.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Issue 21: the router's own JSON answers come from Jackson's streaming generator and are byte for
 * byte what the hand-written quoting ({@link #handWritten}) made, for any text without a lone
 * surrogate. A lone surrogate (which no header or URI the router decodes can produce) is now
 * escaped, where the old code sent {@code ?}.
 */
class JsonResponsesTest {
    @Property(tries = 1500)
    void detailsAreTheBytesTheHandWrittenQuotingMade(@ForAll("text") String s) {
        assertThat(text(JsonResponses.detail(s)))
                .isEqualTo(text(("{\"detail\":" + handWritten(s) + "}").getBytes(StandardCharsets.UTF_8)));
        assertThat(text(JsonResponses.status(s)))
                .isEqualTo(text(("{\"status\":" + handWritten(s) + "}").getBytes(StandardCharsets.UTF_8)));
    }

    @Example
    void escapes() {
        assertThat(new String(
                        JsonResponses.detail("a\"b\\c\n\u0001\b\f\u007f<&>/\u2028\uD83D\uDE00"),
                        StandardCharsets.UTF_8))
                .isEqualTo("{\"detail\":\"a\\\"b\\\\c\\n\\u0001\\u0008\\u000c\u007f<&>/\u2028\uD83D\uDE00\"}");
        assertThat(new String(JsonResponses.status("not ready"), StandardCharsets.UTF_8))
                .isEqualTo("{\"status\":\"not ready\"}");
    }

    @Example
    void aLoneSurrogateIsEscapedNotReplaced() {
        assertThat(new String(JsonResponses.detail("x\uD800y"), StandardCharsets.UTF_8))
                .isEqualTo("{\"detail\":\"x\\ud800y\"}");
    }

    @Provide
    Arbitrary<String> text() {
        return Arbitraries.strings()
                .withChars("\"\\/<>&\b\f\n\r\t\u0000\u001f\u007f\u0080\u00ff\u2028\u2029\ufffd")
                .withCharRange('\u0000', '\u0020')
                .withCharRange(' ', '~')
                .withCharRange('\u0000', '\uD7FF')
                .withCharRange('\uE000', '\uFFFF')
                .ofMaxLength(300)
                .map(s -> s + "\uD83D\uDE00" + s);
    }

    /** The quoting JsonResponses did by hand before issue 21: the oracle. */
    private static String handWritten(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }

    private static String text(byte[] utf8) {
        return new String(utf8, StandardCharsets.ISO_8859_1);
    }
}
