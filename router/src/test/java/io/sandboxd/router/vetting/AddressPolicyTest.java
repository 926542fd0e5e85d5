package io.sandboxd.router.vetting;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.util.List;
import java.util.Optional;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class AddressPolicyTest {
    static final AddressPolicy BUILT_IN = AddressPolicy.builtIn();

    static Optional<String> refusal(AddressPolicy p, String ip) {
        byte[] a = IpLiteral.parse(ip);
        assertThat(a).as(ip).isNotNull();
        return p.refusal(a);
    }

    /** Each class at its edges and at the cloud metadata addresses it holds. */
    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "0.0.0.0|unspecified",
                "0.255.255.255|unspecified",
                "::|unspecified",
                "127.0.0.1|loopback",
                "127.255.255.255|loopback",
                "127.1.2.3|loopback",
                "::1|loopback",
                "169.254.169.254|link-local",
                "169.254.0.0|link-local",
                "169.254.255.255|link-local",
                "fe80::1|link-local",
                "febf:ffff::1|link-local",
                "224.0.0.1|multicast",
                "239.255.255.250|multicast",
                "ff02::1|multicast",
                "ff05::2|multicast",
                "255.255.255.255|broadcast",
                "240.0.0.1|reserved",
                "254.255.255.255|reserved",
                "100.64.0.0|carrier-grade NAT",
                "100.100.100.200|carrier-grade NAT",
                "100.127.255.255|carrier-grade NAT",
                "192.0.0.0|IETF protocol assignments",
                "192.0.0.192|IETF protocol assignments",
                "192.0.0.255|IETF protocol assignments",
                "fc00::1|unique-local",
                "fd00:ec2::254|unique-local",
                "fdff:ffff::1|unique-local",
                "fec0::1|site-local",
                "::7f00:1|IPv4-compatible",
                "::a00:1|IPv4-compatible",
                "::ffff:0:a00:1|IPv4-translated",
            })
    void everyRestrictedClassIsRefusedAndNamed(String ip, String label) {
        assertThat(refusal(BUILT_IN, ip)).as(ip).hasValueSatisfying(why -> assertThat(why)
                .startsWith(label));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "10.0.0.7",
                "10.255.255.255",
                "172.16.0.1",
                "172.31.255.255",
                "192.168.1.2",
                "8.8.8.8",
                "1.0.0.0",
                "126.255.255.255",
                "128.0.0.0",
                "169.253.255.255",
                "169.255.0.0",
                "100.63.255.255",
                "100.128.0.0",
                "192.0.1.0",
                "191.255.255.255",
                "223.255.255.255",
                "2001:db8::1",
                "2600::1",
                "fbff:ffff::1",
                "fe00::1",
                "::ffff:10.1.2.3",
                "64:ff9b::10.0.0.1",
                "2002:a00:1::",
                "64:ff9b::8.8.8.8",
            })
    void podAddressesAreAllowed(String ip) {
        assertThat(refusal(BUILT_IN, ip)).as(ip).isEmpty();
    }

    /** IPv4 carried inside IPv6: mapped, NAT64 (well-known and local-use at every RFC 6052 length), 6to4, Teredo. */
    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "::ffff:127.0.0.1|IPv4 127.0.0.1 inside it is loopback",
                "::ffff:169.254.169.254|IPv4 169.254.169.254 inside it is link-local",
                "0:0:0:0:0:ffff:a9fe:a9fe|IPv4 169.254.169.254 inside it is link-local",
                "64:ff9b::127.0.0.1|IPv4 127.0.0.1 inside it is loopback",
                "64:ff9b::a9fe:a9fe|IPv4 169.254.169.254 inside it is link-local",
                "64:ff9b::100.100.100.200|IPv4 100.100.100.200 inside it is carrier-grade NAT",
                "64:ff9b:1:a9fe:a9:fe00::|IPv4 169.254.169.254 inside it is link-local",
                "2002:7f00:1::|IPv4 127.0.0.1 inside it is loopback",
                "2002:a9fe:a9fe::1|IPv4 169.254.169.254 inside it is link-local",
                "2001:0:a9fe:a9fe::|IPv4 169.254.169.254 inside it is link-local",
                "2001:0:808:808::80ff:fffe|IPv4 127.0.0.1 inside it is loopback",
            })
    void embeddedIpv4IsCheckedToo(String ip, String why) {
        assertThat(refusal(BUILT_IN, ip)).as(ip).hasValueSatisfying(w -> assertThat(w)
                .startsWith(why));
    }

    /** Local-use NAT64 at /48, /56, /64 and /96 (the zero byte 8 splits the IPv4 for the first three). */
    @ParameterizedTest
    @ValueSource(
            strings = {
                "64:ff9b:1:a9fe:a9:fe00::",
                "64:ff9b:1:7f:0:1::",
                "64:ff9b:1:0:c0:0:c000:0",
                "64:ff9b:1::a9fe:a9fe"
            })
    void localUseNat64IsCheckedAtEveryPrefixLength(String ip) {
        assertThat(refusal(BUILT_IN, ip)).as(ip).hasValueSatisfying(w -> assertThat(w)
                .startsWith("IPv4 "));
    }

    /** The operator's prefix length is unknown, so any reading that lands in a class refuses it (never a Pod address). */
    @Test
    void localUseNat64IsRefusedIfAnyReadingIsRestricted() {
        assertThat(refusal(BUILT_IN, "64:ff9b:1:a00:1::"))
                .hasValue("IPv4 0.1.0.0 inside it is unspecified (0.0.0.0/8, ::/128)");
        assertThat(refusal(BUILT_IN, "64:ff9b:1:808:8:808:800:808")).isEmpty();
    }

    @Test
    void allowedRangesLiftAClassAndDeniedRangesAlwaysWin() {
        AddressPolicy p = new AddressPolicy(
                List.of(Cidr.parse("100.100.100.200/32"), Cidr.parse("10.9.0.0/16")),
                List.of(Cidr.parse("100.64.0.0/10"), Cidr.parse("fd12:3456::/32"), Cidr.parse("10.9.1.0/24")));
        assertThat(refusal(p, "100.65.1.2")).isEmpty();
        assertThat(refusal(p, "fd12:3456::9")).isEmpty();
        assertThat(refusal(p, "fd00:ec2::254")).hasValue("unique-local (fc00::/7)");
        assertThat(refusal(p, "100.100.100.200")).hasValue("in denied range 100.100.100.200/32 (--deny-cidr)");
        assertThat(refusal(p, "10.9.1.1")).hasValue("in denied range 10.9.0.0/16 (--deny-cidr)");
        assertThat(refusal(p, "10.8.0.1")).isEmpty();
        assertThat(refusal(p, "::ffff:10.9.0.1"))
                .hasValue("IPv4 10.9.0.1 inside it is in denied range 10.9.0.0/16 (--deny-cidr)");
        assertThat(refusal(p, "127.0.0.1"))
                .hasValueSatisfying(w -> assertThat(w).startsWith("loopback"));
    }

    @Test
    void anAllowedIpv6RangeDoesNotLiftTheIpv4ItCarries() {
        AddressPolicy p = BUILT_IN.allowing(List.of(Cidr.parse("64:ff9b::/96")));
        assertThat(refusal(p, "64:ff9b::10.0.0.1")).isEmpty();
        assertThat(refusal(p, "64:ff9b::169.254.169.254")).isPresent();
    }

    @Test
    void cidrsAreStrict() {
        assertThat(Cidr.parse("10.0.0.0/8").contains(IpLiteral.parse("10.200.0.1")))
                .isTrue();
        assertThat(Cidr.parse("10.0.0.0/8").contains(IpLiteral.parse("11.0.0.1")))
                .isFalse();
        assertThat(Cidr.parse("10.0.0.0/8").contains(IpLiteral.parse("::ffff:10.0.0.1")))
                .isFalse();
        assertThat(Cidr.parse("0.0.0.0/0").contains(IpLiteral.parse("1.2.3.4"))).isTrue();
        assertThat(Cidr.parse("fe80::/10").contains(IpLiteral.parse("febf::1"))).isTrue();
        assertThat(Cidr.parse("fe80::/10").contains(IpLiteral.parse("fec0::1"))).isFalse();
        assertThat(Cidr.parse("1.2.3.4/32").toString()).isEqualTo("1.2.3.4/32");
        for (String bad : List.of(
                "10.0.0.1/8",
                "10.0.0.0",
                "10.0.0.0/33",
                "10.0.0.0/-1",
                "10.0.0.0/",
                "010.0.0.0/8",
                "::/129",
                "fe80::1/10",
                "10.0.0.0/8 ",
                "10.0.0.0/0x8",
                "[::]/0")) {
            assertThatThrownBy(() -> Cidr.parse(bad))
                    .as(bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("CIDR '" + bad + "'");
        }
    }

    /** Whatever the JDK calls loopback, link-local, multicast or any-local is refused, in both families. */
    @Property(tries = 5000)
    void everyJdkSpecialAddressIsRefused(@ForAll @Size(4) byte[] v4, @ForAll @Size(16) byte[] v6) throws Exception {
        for (byte[] a : List.of(v4, v6)) {
            InetAddress ia = InetAddress.getByAddress(a);
            if (ia.getAddress().length != a.length) {
                continue; // ::ffff:a.b.c.d: the JDK hands back the IPv4; checked by the next property
            }
            boolean special = ia.isLoopbackAddress()
                    || ia.isLinkLocalAddress()
                    || ia.isMulticastAddress()
                    || ia.isAnyLocalAddress()
                    || ia.isSiteLocalAddress() && a.length == 16;
            if (special) {
                assertThat(BUILT_IN.refusal(a)).as(ia.toString()).isPresent();
            }
        }
    }

    /** An IPv4 address is refused exactly when every IPv6 form that carries it is. */
    @Property(tries = 5000)
    void wrappingNeverHidesAnIpv4(@ForAll @Size(4) byte[] v4) {
        boolean refused = BUILT_IN.refusal(v4).isPresent();
        assertThat(BUILT_IN.refusal(wrap("::ffff:0:0", 12, v4)).isPresent()).isEqualTo(refused);
        assertThat(BUILT_IN.refusal(wrap("64:ff9b::", 12, v4)).isPresent()).isEqualTo(refused);
        assertThat(BUILT_IN.refusal(wrap("2002::", 2, v4)).isPresent()).isEqualTo(refused);
        assertThat(BUILT_IN.refusal(teredo(v4, GOOGLE)).isPresent())
                .as("teredo server")
                .isEqualTo(refused);
        assertThat(BUILT_IN.refusal(teredo(GOOGLE, v4)).isPresent())
                .as("teredo client")
                .isEqualTo(refused);
        if (refused) {
            assertThat(BUILT_IN.refusal(wrap("64:ff9b:1::", 12, v4))).isPresent();
            byte[] l48 = IpLiteral.parse("64:ff9b:1::");
            l48[6] = v4[0];
            l48[7] = v4[1];
            l48[9] = v4[2];
            l48[10] = v4[3];
            assertThat(BUILT_IN.refusal(l48)).isPresent();
        }
    }

    /**
     * Exhaustive over the classes: the first and last address of every range is refused, and an
     * IPv4 one also in every IPv6 form that carries it (mapped, compatible, NAT64 /96, local-use
     * NAT64 at /48, /56, /64 and /96, 6to4, Teredo server and client); the addresses just outside
     * each IPv4 range, when in no class, are allowed bare and in those forms.
     */
    @Test
    void everyRangeIsRefusedAtBothEndsInEveryFormAndItsNeighboursAreNot() {
        int checked = 0;
        for (AddressClass c : AddressClass.values()) {
            for (Cidr r : c.ranges()) {
                byte[] first = bound(r, false);
                byte[] last = bound(r, true);
                for (byte[] a : List.of(first, last)) {
                    assertThat(BUILT_IN.refusal(a))
                            .as("%s of %s", IpLiteral.format(a), r)
                            .isPresent();
                    checked++;
                    if (a.length == 4) {
                        for (byte[] w : carriers(a)) {
                            assertThat(BUILT_IN.refusal(w))
                                    .as("%s carrying %s", IpLiteral.format(w), IpLiteral.format(a))
                                    .isPresent();
                            checked++;
                        }
                    }
                }
                if (first.length == 4) {
                    for (byte[] n : java.util.Arrays.asList(add(first, -1), add(last, 1))) {
                        if (n == null || AddressClass.of(n) != null) {
                            continue;
                        }
                        assertThat(BUILT_IN.refusal(n))
                                .as("neighbour %s of %s", IpLiteral.format(n), r)
                                .isEmpty();
                        for (byte[] w : unambiguousCarriers(n)) {
                            assertThat(BUILT_IN.refusal(w))
                                    .as("%s carrying neighbour %s", IpLiteral.format(w), IpLiteral.format(n))
                                    .isEmpty();
                        }
                        checked++;
                    }
                }
            }
        }
        assertThat(checked).isGreaterThan(200);
    }

    /** The first or last address of {@code r}. */
    static byte[] bound(Cidr r, boolean last) {
        String[] parts = r.toString().split("/");
        byte[] a = IpLiteral.parse(parts[0]);
        int prefix = Integer.parseInt(parts[1]);
        if (last) {
            for (int bit = prefix; bit < a.length * 8; bit++) {
                a[bit / 8] |= (byte) (0x80 >> (bit % 8));
            }
        }
        return a;
    }

    /** {@code a} plus {@code delta} (±1), or null past either end of the address space. */
    static byte[] add(byte[] a, int delta) {
        long v = 0;
        for (byte b : a) {
            v = (v << 8) | (b & 0xff);
        }
        v += delta;
        if (v < 0 || v > 0xffffffffL) {
            return null;
        }
        return new byte[] {(byte) (v >> 24), (byte) (v >> 16), (byte) (v >> 8), (byte) v};
    }

    /** The IPv6 forms that carry {@code v4} and nothing else: mapped, NAT64 /96, 6to4, Teredo server and client. */
    static List<byte[]> unambiguousCarriers(byte[] v4) {
        return List.of(
                wrap("::ffff:0:0", 12, v4),
                wrap("64:ff9b::", 12, v4),
                wrap("2002::", 2, v4),
                teredo(v4, GOOGLE),
                teredo(GOOGLE, v4));
    }

    /**
     * Every IPv6 address that carries {@code v4}: the unambiguous forms, IPv4-compatible, and
     * local-use NAT64 at each prefix length (whose other readings may refuse it too).
     */
    static List<byte[]> carriers(byte[] v4) {
        List<byte[]> out = new java.util.ArrayList<>(unambiguousCarriers(v4));
        out.add(wrap("::", 12, v4));
        out.add(wrap("64:ff9b:1::", 12, v4));
        byte[] l48 = IpLiteral.parse("64:ff9b:1::");
        l48[6] = v4[0];
        l48[7] = v4[1];
        l48[9] = v4[2];
        l48[10] = v4[3];
        out.add(l48);
        byte[] l56 = IpLiteral.parse("64:ff9b:1::");
        l56[7] = v4[0];
        l56[9] = v4[1];
        l56[10] = v4[2];
        l56[11] = v4[3];
        out.add(l56);
        out.add(wrap("64:ff9b:1::", 9, v4));
        return out;
    }

    static final byte[] GOOGLE = {8, 8, 8, 8};

    /** A Teredo address of this server and client (RFC 4380 stores the client inverted). */
    private static byte[] teredo(byte[] server, byte[] client) {
        byte[] a = wrap("2001::", 4, server);
        for (int i = 0; i < 4; i++) {
            a[12 + i] = (byte) ~client[i];
        }
        return a;
    }

    private static byte[] wrap(String prefix, int at, byte[] v4) {
        byte[] a = IpLiteral.parse(prefix);
        System.arraycopy(v4, 0, a, at, 4);
        return a;
    }
}
