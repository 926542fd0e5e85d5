package io.sandboxd.router.vetting;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
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
