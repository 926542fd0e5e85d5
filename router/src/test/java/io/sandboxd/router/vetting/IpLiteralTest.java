package io.sandboxd.router.vetting;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class IpLiteralTest {
    @ParameterizedTest
    @CsvSource({
        "10.0.0.7, 10.0.0.7",
        "0.0.0.0, 0.0.0.0",
        "255.255.255.255, 255.255.255.255",
        "::, ::",
        "::1, ::1",
        "2001:db8::1, 2001:db8::1",
        "2001:DB8:0:0:0:0:0:1, 2001:db8::1",
        "fd00:ec2::254, fd00:ec2::254",
        "1:2:3:4:5:6:7:8, 1:2:3:4:5:6:7:8",
        "1::, 1::",
        "::ffff:1.2.3.4, ::ffff:102:304",
        "64:ff9b::169.254.169.254, 64:ff9b::a9fe:a9fe",
        "0:0:0:0:0:ffff:7f00:1, ::ffff:7f00:1",
    })
    void strictLiteralsParse(String text, String canonical) {
        byte[] a = IpLiteral.parse(text);
        assertThat(a).isNotNull();
        assertThat(IpLiteral.format(a)).isEqualTo(canonical);
    }

    /** Every spelling some resolver reads as an address, and the router refuses to read at all. */
    @ParameterizedTest
    @ValueSource(
            strings = {
                "0177.0.0.1",
                "0x7f.0.0.1",
                "0x7f000001",
                "2130706433",
                "017700000001",
                "127.1",
                "127.0.1",
                "127.0.0.1.",
                "127.0.0.1..",
                ".127.0.0.1",
                "127.0.0.01",
                "127.00.0.1",
                "1.2.3.256",
                "1.2.3.-1",
                "+1.2.3.4",
                "1.2.3.4 ",
                " 1.2.3.4",
                "1.2.3.4\t",
                "1.2.3.4\0",
                "1.2.3",
                "1.2.3.4.5",
                "1..2.3",
                "\u0661.2.3.4",
                "\uff11.2.3.4",
                "[::1]",
                "[::1",
                "::1]",
                "fe80::1%eth0",
                "fe80::1%1",
                "fe80::1%25eth0",
                "10.0.0.1%eth0",
                "::1.",
                ":::",
                "1:::2",
                "1::2::3",
                ":1",
                "1:",
                "1:2:3:4:5:6:7:8:9",
                "1:2:3:4:5:6:7",
                "1:2:3:4:5:6:7::8",
                "12345::",
                "g::",
                "::ffff:127.1",
                "::ffff:0177.0.0.1",
                "::ffff:1.2.3.4:5",
                "1.2.3.4::",
                "::\uff11",
                "localhost",
                "metadata.google.internal",
                "",
                " ",
            })
    void everyOtherSpellingIsRefused(String text) {
        assertThat(IpLiteral.parse(text)).as(text).isNull();
    }

    /**
     * Every other spelling of each restricted address some parser reads as that address: per-part
     * octal and hex, whole-number decimal, octal and hex, three- and two-part short forms, leading
     * zeros, trailing and leading dots, brackets, zone ids, ports, a prefix length, surrounding
     * whitespace, and the same inside IPv4-mapped and NAT64 text. None parses; the canonical text does.
     */
    @org.junit.jupiter.api.Test
    void noOtherSpellingOfARestrictedAddressParses() {
        int forms = 0;
        for (String v4 : List.of(
                "127.0.0.1",
                "169.254.169.254",
                "100.100.100.200",
                "192.0.0.192",
                "0.0.0.0",
                "224.0.0.1",
                "255.255.255.255",
                "240.0.0.1")) {
            assertThat(IpLiteral.parse(v4)).as(v4).isNotNull();
            for (String form : v4Spellings(v4)) {
                assertThat(IpLiteral.parse(form)).as("%s for %s", form, v4).isNull();
                forms++;
                if (form.indexOf('.') >= 0) { // "0" alone is a valid last group: ::ffff:0 is another address
                    assertThat(IpLiteral.parse("::ffff:" + form))
                            .as("::ffff:%s", form)
                            .isNull();
                    assertThat(IpLiteral.parse("64:ff9b::" + form))
                            .as("64:ff9b::%s", form)
                            .isNull();
                    forms += 2;
                }
            }
        }
        for (String v6 : List.of(
                "::1",
                "::",
                "fe80::1",
                "fd00:ec2::254",
                "ff02::1",
                "::ffff:a9fe:a9fe",
                "64:ff9b::a9fe:a9fe",
                "2002:a9fe:a9fe::1")) {
            assertThat(IpLiteral.parse(v6)).as(v6).isNotNull();
            for (String form : List.of(
                    "[" + v6 + "]",
                    "[" + v6 + "]:80",
                    v6 + "%eth0",
                    v6 + "%25eth0",
                    v6 + "%1",
                    v6 + "%",
                    v6 + ".",
                    v6 + "/128",
                    " " + v6,
                    v6 + " ",
                    v6 + "\n",
                    "0x" + v6)) {
                assertThat(IpLiteral.parse(form)).as("%s for %s", form, v6).isNull();
                forms++;
            }
        }
        assertThat(IpLiteral.parse("00000::1")).as("a group of five digits").isNull();
        assertThat(forms).isGreaterThan(300);
    }

    /** Spellings of {@code v4} (canonical dotted decimal) that are not that text. */
    static List<String> v4Spellings(String v4) {
        String[] p = v4.split("\\.");
        int[] b = new int[4];
        long n = 0;
        for (int i = 0; i < 4; i++) {
            b[i] = Integer.parseInt(p[i]);
            n = (n << 8) | b[i];
        }
        List<String> out = new java.util.ArrayList<>();
        out.add(String.format("0%o.0%o.0%o.0%o", b[0], b[1], b[2], b[3]));
        out.add(String.format("0%o.%d.%d.%d", b[0], b[1], b[2], b[3]));
        out.add(String.format("0x%x.0x%x.0x%x.0x%x", b[0], b[1], b[2], b[3]));
        out.add(String.format("0X%X.%d.%d.%d", b[0], b[1], b[2], b[3]));
        out.add(Long.toString(n));
        out.add("0" + Long.toOctalString(n));
        out.add("0x" + Long.toHexString(n));
        out.add(b[0] + "." + b[1] + "." + (b[2] * 256 + b[3]));
        out.add(b[0] + "." + ((b[1] << 16) | (b[2] << 8) | b[3]));
        out.add(String.format("%03d.%03d.%03d.%03d", b[0], b[1], b[2], b[3]));
        out.add(b[0] + "." + b[1] + "." + b[2] + ".0" + b[3]);
        out.add(v4 + ".");
        out.add("." + v4);
        out.add("[" + v4 + "]");
        out.add(v4 + ":80");
        out.add(v4 + "%eth0");
        out.add(v4 + "/32");
        out.add(" " + v4);
        out.add(v4 + "\t");
        out.add(v4 + ".0");
        out.removeIf(v4::equals); // e.g. %03d of 100.100.100.200 is the address itself
        return out;
    }

    @Property(tries = 2000)
    void ipv4RoundTripsAndMatchesTheJdk(@ForAll @Size(4) byte[] a) throws Exception {
        String text = IpLiteral.format(a);
        assertThat(IpLiteral.parse(text)).isEqualTo(a);
        assertThat(InetAddress.getByName(text).getAddress()).isEqualTo(a);
    }

    @Property(tries = 2000)
    void ipv6RoundTripsAndMatchesTheJdk(@ForAll @Size(16) byte[] a) throws Exception {
        String text = IpLiteral.format(a);
        assertThat(IpLiteral.parse(text)).isEqualTo(a);
        byte[] jdk = InetAddress.getByName(text).getAddress(); // the JDK unwraps ::ffff:a.b.c.d to IPv4
        assertThat(jdk.length == 4 ? mapped(jdk) : jdk).isEqualTo(a);
    }

    private static byte[] mapped(byte[] v4) {
        byte[] m = new byte[16];
        m[10] = (byte) 0xff;
        m[11] = (byte) 0xff;
        System.arraycopy(v4, 0, m, 12, 4);
        return m;
    }
}
