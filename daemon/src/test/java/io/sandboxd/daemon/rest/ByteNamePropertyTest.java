package io.sandboxd.daemon.rest;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.jna.LastErrorException;
import com.sun.jna.Native;
import io.sandboxd.daemon.fs.UserPath;
import io.sandboxd.daemon.fs.Utf8;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Issue 16: any name a process can create (random bytes: invalid UTF-8, newlines, quotes, '%',
 * 255-byte names) is listed, read by its percent-encoded bytes and deleted through the REST API;
 * nothing outside the root is touched and nothing answers 5xx. 6,000 generated names, each made
 * with raw bytes through libc, plus a batch made by a python3 process.
 */
class ByteNamePropertyTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String OUTSIDE = "outside-the-root";
    private static Path base;
    private static RestFixture fixture;
    private static HttpClient http;
    private static int dirFd;

    /** libc with byte paths: the test makes names the JDK could not spell. */
    static final class Libc {
        static {
            Native.register("c");
        }

        static native int openat(int dirfd, byte[] path, int flags, int mode) throws LastErrorException;

        static native long write(int fd, byte[] buf, long n) throws LastErrorException;

        static native int close(int fd) throws LastErrorException;
    }

    @BeforeContainer
    static void start() throws Exception {
        base = Files.createTempDirectory("byte-names").toRealPath();
        Files.writeString(base.resolve("sentinel.txt"), OUTSIDE);
        fixture = new RestFixture(base);
        Files.createDirectories(fixture.root.resolve("fuzz"));
        int oDirectory = System.getProperty("os.arch", "").startsWith("aarch64") ? 040000 : 0200000;
        dirFd = Libc.openat(
                -100, (fixture.root.resolve("fuzz") + "\0").getBytes(StandardCharsets.UTF_8), oDirectory, 0);
        http = HttpClient.newHttpClient();
    }

    @AfterContainer
    static void stop() throws Exception {
        Libc.close(dirFd);
        fixture.close();
        new ProcessBuilder("rm", "-rf", base.toString()).start().waitFor();
    }

    @Provide
    Arbitrary<byte[]> names() {
        Arbitrary<Byte> any = Arbitraries.bytes().filter(b -> b != 0 && b != '/');
        Arbitrary<Byte> tricky = Arbitraries.of(
                (byte) 0xff,
                (byte) 0xfe,
                (byte) 0x80,
                (byte) 0xc3,
                (byte) 0xed,
                (byte) 0xa0,
                (byte) '\n',
                (byte) '%',
                (byte) '"',
                (byte) '\\',
                (byte) '.',
                (byte) '?',
                (byte) '#',
                (byte) ' ',
                (byte) 'a',
                (byte) 0xe2,
                (byte) 0x82);
        Arbitrary<Byte> b = Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(3, any), net.jqwik.api.Tuple.of(2, tricky));
        return Arbitraries.oneOf(
                        b.array(byte[].class).ofMinSize(1).ofMaxSize(12),
                        b.array(byte[].class).ofMinSize(240).ofMaxSize(255))
                .filter(n -> !Arrays.equals(n, new byte[] {'.'})
                        && !Arrays.equals(n, new byte[] {'.', '.'})
                        && !new String(n, StandardCharsets.ISO_8859_1).startsWith(UserPath.TEMP_PREFIX));
    }

    /** Every byte as %XX: the client's own encoding, independent of the daemon's. */
    static String encodeAll(byte[] name) {
        StringBuilder sb = new StringBuilder();
        for (byte x : name) {
            sb.append(String.format("%%%02X", x & 0xff));
        }
        return sb.toString();
    }

    private static HttpResponse<byte[]> send(String method, String path) throws Exception {
        HttpResponse<byte[]> r = http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + fixture.server.port() + path))
                        .method(method, HttpRequest.BodyPublishers.noBody())
                        .build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertThat(r.statusCode()).as(method + " " + path).isLessThan(500);
        return r;
    }

    @Property(tries = 6000)
    void anyNameIsListedReadAndDeleted(@ForAll("names") byte[] name) throws Exception {
        int fd = Libc.openat(dirFd, Arrays.copyOf(name, name.length + 1), 01 | 0100 | 01000, 0644);
        Libc.write(fd, name, name.length);
        Libc.close(fd);

        JsonNode entries = JSON.readTree(send("GET", "/v1/files/fuzz").body()).get("entries");
        assertThat(entries.size()).as("only this try's file is there").isEqualTo(1);
        JsonNode e = entries.get(0);
        if (Utf8.isValid(name)) {
            assertThat(e.get("name").asString()).isEqualTo(new String(name, StandardCharsets.UTF_8));
            assertThat(e.has("name_encoded")).isFalse();
        } else {
            assertThat(e.get("name").asString()).isEqualTo(Utf8.lossy(name)).contains("\uFFFD");
            assertThat(send("GET", "/v1/files/fuzz/" + e.get("name_encoded").asString())
                            .body())
                    .isEqualTo(name);
        }
        assertThat(e.get("size").asLong()).isEqualTo(name.length);

        HttpResponse<byte[]> get = send("GET", "/v1/files/fuzz/" + encodeAll(name));
        assertThat(get.statusCode()).isEqualTo(200);
        assertThat(get.body()).isEqualTo(name);
        assertThat(send("DELETE", "/v1/files/fuzz/" + encodeAll(name)).statusCode())
                .isEqualTo(204);
        assertThat(Files.readString(base.resolve("sentinel.txt"))).isEqualTo(OUTSIDE);
    }

    /** A process makes 300 random names in several directories; one recursive DELETE removes them all. */
    @Example
    void namesMadeByAProcessAreRemovedByARecursiveDelete() throws Exception {
        Process p = new ProcessBuilder(
                        "python3",
                        "-c",
                        "import os, random\n"
                                + "random.seed(16)\n"
                                + "for d in (b'a', b'a/\\xff', b'a/\\xff/\\n\\x80'):\n"
                                + "    os.mkdir(d)\n"
                                + "    for i in range(100):\n"
                                + "        n = bytes(random.choice([b for b in range(1, 256) if b != 47]) for _ in range(random.randint(1, 255)))\n"
                                + "        if n in (b'.', b'..'):\n"
                                + "            continue\n"
                                + "        try:\n"
                                + "            os.close(os.open(d + b'/' + n, os.O_CREAT | os.O_WRONLY, 0o644))\n"
                                + "        except FileExistsError:\n"
                                + "            pass\n")
                .directory(fixture.root.toFile())
                .inheritIO()
                .start();
        assertThat(p.waitFor()).isZero();
        JsonNode entries = JSON.readTree(send("GET", "/v1/files/a/%FF").body()).get("entries");
        assertThat(entries.size()).isGreaterThan(90);
        List<String> paths = new ArrayList<>();
        entries.forEach(e -> paths.add(
                e.has("name_encoded")
                        ? e.get("name_encoded").asString()
                        : Utf8.percentEncode(e.get("name").asString().getBytes(StandardCharsets.UTF_8))));
        for (String n : paths) {
            assertThat(send("GET", "/v1/files/a/%FF/" + n).statusCode()).as(n).isEqualTo(200);
        }
        assertThat(send("DELETE", "/v1/files/a?recursive=true").statusCode()).isEqualTo(204);
        assertThat(fixture.root.resolve("a")).doesNotExist();
        assertThat(Files.readString(base.resolve("sentinel.txt"))).isEqualTo(OUTSIDE);
    }
}
