package io.sandboxd.daemon.fs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

class Utf8Test {
    private static boolean jdkAccepts(byte[] b) {
        try {
            StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(b));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }

    /** Every 1-, 2- and 3-byte sequence, and every 4-byte one with a lead byte from F0 to F4: same verdict as the JDK. */
    @Test
    void validityAgreesWithTheJdkOnEveryShortSequence() {
        for (int a = 0; a < 256; a++) {
            check(new byte[] {(byte) a});
            for (int b = 0; b < 256; b++) {
                check(new byte[] {(byte) a, (byte) b});
                if (a >= 0xe0) {
                    for (int c = 0x70; c < 0xd0; c++) {
                        check(new byte[] {(byte) a, (byte) b, (byte) c});
                        if (a >= 0xf0 && a <= 0xf5 && b >= 0x80 && b < 0xc0) {
                            check(new byte[] {(byte) a, (byte) b, (byte) c, (byte) 0x80});
                        }
                    }
                }
            }
        }
    }

    private static void check(byte[] b) {
        boolean valid = Utf8.isValid(b);
        assertThat(valid).as(java.util.HexFormat.of().formatHex(b)).isEqualTo(jdkAccepts(b));
        if (valid) {
            assertThat(Utf8.lossy(b)).isEqualTo(new String(b, StandardCharsets.UTF_8));
        }
    }

    @Test
    void lossyRendersEachInvalidByteAsOneReplacementLikeGo() {
        assertThat(Utf8.lossy(new byte[] {(byte) 0xff, (byte) 0xfe})).isEqualTo("\uFFFD\uFFFD");
        assertThat(Utf8.lossy(new byte[] {'a', (byte) 0xe2, (byte) 0x82, 'b'})).isEqualTo("a\uFFFD\uFFFDb");
        assertThat(Utf8.lossy(new byte[] {(byte) 0xed, (byte) 0xa0, (byte) 0x80}))
                .isEqualTo("\uFFFD\uFFFD\uFFFD");
        assertThat(Utf8.lossy(new byte[] {(byte) 0xc0, (byte) 0xae})).isEqualTo("\uFFFD\uFFFD");
        assertThat(Utf8.lossy("é😀".getBytes(StandardCharsets.UTF_8))).isEqualTo("é😀");
    }

    @Property(tries = 2000)
    void percentEncodingDecodesBackToTheSameBytes(@ForAll @Size(max = 64) byte[] name) {
        String enc = Utf8.percentEncode(name);
        assertThat(enc).matches("[A-Za-z0-9._~%-]*");
        assertThat(java.net.URLDecoder.decode(enc.replace("+", "%2B"), StandardCharsets.ISO_8859_1)
                        .getBytes(StandardCharsets.ISO_8859_1))
                .isEqualTo(name);
    }

    @Property(tries = 2000)
    void lossyNeverThrowsAndIsValidText(@ForAll @Size(max = 64) byte[] name) {
        String s = Utf8.lossy(name);
        assertThat(Utf8.isValid(s.getBytes(StandardCharsets.UTF_8))).isTrue();
        assertThat(Utf8.isValid(name)).isEqualTo(jdkAccepts(name));
    }
}
