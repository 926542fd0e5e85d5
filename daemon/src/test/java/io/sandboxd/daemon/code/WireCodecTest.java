package io.sandboxd.daemon.code;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

class WireCodecTest {
    static final byte[] KEY = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    /** What a kernel (jupyter_client's Session) sends: routing frames, delimiter, hex HMAC, 4 JSON parts. */
    static List<byte[]> kernelMessage(byte[] key, String type, String parentId, String content) throws Exception {
        String header = "{\"msg_id\":\"m1\",\"msg_type\":\"" + type + "\",\"version\":\"5.3\"}";
        String parent = "{\"msg_id\":\"" + parentId + "\"}";
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(key, "HmacSHA256"));
        for (String s : new String[] {header, parent, "{}", content}) {
            mac.update(s.getBytes(StandardCharsets.UTF_8));
        }
        List<byte[]> frames = new ArrayList<>();
        frames.add("kernel.abc.stream".getBytes(StandardCharsets.UTF_8));
        frames.add(WireCodec.DELIMITER);
        frames.add(HexFormat.of().formatHex(mac.doFinal()).getBytes(StandardCharsets.US_ASCII));
        for (String s : new String[] {header, parent, "{}", content}) {
            frames.add(s.getBytes(StandardCharsets.UTF_8));
        }
        return frames;
    }

    @Test
    void decodesASignedKernelMessage() throws Exception {
        KernelMessage m = new WireCodec(KEY)
                .decode(kernelMessage(KEY, "stream", "p1", "{\"name\":\"stdout\",\"text\":\"hé\\n\"}"));
        assertThat(m.msgType()).isEqualTo("stream");
        assertThat(m.msgId()).isEqualTo("m1");
        assertThat(m.parentMsgId()).isEqualTo("p1");
        assertThat(m.content().get("text").getAsString()).isEqualTo("hé\n");
    }

    @Test
    void aWrongKeyOrAChangedPartIsABadSignature() throws Exception {
        assertThatThrownBy(() -> new WireCodec(KEY).decode(kernelMessage("other".getBytes(), "stream", "p", "{}")))
                .isInstanceOfSatisfying(WireCodec.Rejected.class, r -> assertThat(r.badSignature)
                        .isTrue());
        List<byte[]> tampered = kernelMessage(KEY, "stream", "p", "{\"text\":\"a\"}");
        tampered.set(tampered.size() - 1, "{\"text\":\"b\"}".getBytes(StandardCharsets.UTF_8));
        assertThatThrownBy(() -> new WireCodec(KEY).decode(tampered))
                .isInstanceOfSatisfying(WireCodec.Rejected.class, r -> assertThat(r.badSignature)
                        .isTrue());
        List<byte[]> unsigned = kernelMessage(KEY, "stream", "p", "{}");
        unsigned.set(2, new byte[0]);
        assertThatThrownBy(() -> new WireCodec(KEY).decode(unsigned))
                .isInstanceOfSatisfying(WireCodec.Rejected.class, r -> assertThat(r.badSignature)
                        .isTrue());
    }

    @Test
    void framesWithoutDelimiterOrTooFewPartsAreMalformed() {
        assertThatThrownBy(() -> new WireCodec(KEY).decode(List.of("x".getBytes())))
                .isInstanceOfSatisfying(WireCodec.Rejected.class, r -> assertThat(r.badSignature)
                        .isFalse());
        assertThatThrownBy(() -> new WireCodec(KEY).decode(List.of(WireCodec.DELIMITER, new byte[0], new byte[0])))
                .isInstanceOfSatisfying(WireCodec.Rejected.class, r -> assertThat(r.badSignature)
                        .isFalse());
    }

    @Test
    void encodesARequestThatVerifiesWithTheKey() throws Exception {
        JsonObject content = new JsonObject();
        content.addProperty("code", "1+1");
        List<byte[]> frames = new WireCodec(KEY).encode("execute_request", "id-1", content);
        assertThat(frames).hasSize(6);
        assertThat(frames.get(0)).isEqualTo(WireCodec.DELIMITER);
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(KEY, "HmacSHA256"));
        for (int i = 2; i < 6; i++) {
            mac.update(frames.get(i));
        }
        assertThat(new String(frames.get(1), StandardCharsets.US_ASCII))
                .isEqualTo(HexFormat.of().formatHex(mac.doFinal()));
        JsonObject header = JsonParser.parseString(new String(frames.get(2), StandardCharsets.UTF_8))
                .getAsJsonObject();
        assertThat(header.get("msg_type").getAsString()).isEqualTo("execute_request");
        assertThat(header.get("msg_id").getAsString()).isEqualTo("id-1");
        assertThat(header.get("version").getAsString()).startsWith("5.");
        assertThat(header.get("session").getAsString()).isNotEmpty();
        // and our own decoder accepts it (a signed message round-trips)
        assertThat(new WireCodec(KEY).decode(frames).msgType()).isEqualTo("execute_request");
    }
}
