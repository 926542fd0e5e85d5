package io.sandboxd.daemon.code;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The Jupyter wire format (messaging protocol v5.3) of one kernel: frames
 * {@code [routing..., "<IDS|MSG>", hmac, header, parent_header, metadata, content, buffers...]},
 * where hmac is the hex HMAC-SHA256, under the kernel's own key, of the four JSON frames. Pure
 * apart from the clock and random ids; one instance per kernel, used by one thread (the Mac is
 * not thread-safe).
 */
final class WireCodec {
    static final byte[] DELIMITER = "<IDS|MSG>".getBytes(StandardCharsets.US_ASCII);
    static final String PROTOCOL_VERSION = "5.3";
    private static final byte[] EMPTY_OBJECT = "{}".getBytes(StandardCharsets.US_ASCII);
    private static final HexFormat HEX = HexFormat.of();

    /** Why a message was not accepted. */
    static final class Rejected extends Exception {
        final boolean badSignature;

        Rejected(String message, boolean badSignature) {
            super(message, null, false, false);
            this.badSignature = badSignature;
        }
    }

    private final Mac mac;
    private final String session = UUID.randomUUID().toString();

    /** @param key the connection file's {@code key}, as its UTF-8 bytes (Jupyter's convention) */
    WireCodec(byte[] key) {
        try {
            mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("HMAC-SHA256 unavailable", e);
        }
    }

    /**
     * A new request from this client: the frames to send on a DEALER socket (no routing frames).
     *
     * @param msgId the new message's id (the caller matches replies by it)
     */
    List<byte[]> encode(String msgType, String msgId, JsonObject content) {
        JsonObject header = new JsonObject();
        header.addProperty("msg_id", msgId);
        header.addProperty("session", session);
        header.addProperty("username", "sandboxd");
        header.addProperty("date", Instant.now().toString());
        header.addProperty("msg_type", msgType);
        header.addProperty("version", PROTOCOL_VERSION);
        byte[] h = utf8(header.toString());
        byte[] c = utf8(content.toString());
        List<byte[]> frames = new ArrayList<>(6);
        frames.add(DELIMITER);
        frames.add(utf8(sign(h, EMPTY_OBJECT, EMPTY_OBJECT, c)));
        frames.add(h);
        frames.add(EMPTY_OBJECT);
        frames.add(EMPTY_OBJECT);
        frames.add(c);
        return frames;
    }

    static String newMessageId() {
        return UUID.randomUUID().toString();
    }

    /**
     * Checks and decodes received frames (routing or topic frames before the delimiter are
     * ignored; so are buffers after the content).
     *
     * @throws Rejected badSignature for a wrong or missing HMAC, else for a malformed message
     */
    KernelMessage decode(List<byte[]> frames) throws Rejected {
        int d = -1;
        for (int i = 0; i < frames.size(); i++) {
            if (MessageDigest.isEqual(frames.get(i), DELIMITER)) {
                d = i;
                break;
            }
        }
        if (d < 0 || frames.size() < d + 6) {
            throw new Rejected("not a Jupyter message (no delimiter or too few frames)", false);
        }
        byte[] header = frames.get(d + 2);
        byte[] parent = frames.get(d + 3);
        byte[] metadata = frames.get(d + 4);
        byte[] content = frames.get(d + 5);
        byte[] expected = utf8(sign(header, parent, metadata, content));
        if (!MessageDigest.isEqual(expected, frames.get(d + 1))) {
            throw new Rejected("bad signature", true);
        }
        try {
            JsonObject h = object(header);
            JsonObject p = object(parent);
            JsonObject c = object(content);
            return new KernelMessage(string(h, "msg_type"), string(h, "msg_id"), string(p, "msg_id"), c);
        } catch (JsonParseException | IllegalStateException e) {
            throw new Rejected("malformed JSON in a signed message", false);
        }
    }

    private String sign(byte[] header, byte[] parent, byte[] metadata, byte[] content) {
        mac.update(header);
        mac.update(parent);
        mac.update(metadata);
        mac.update(content);
        return HEX.formatHex(mac.doFinal());
    }

    private static JsonObject object(byte[] json) {
        JsonElement e = JsonParser.parseString(new String(json, StandardCharsets.UTF_8));
        return e.isJsonObject() ? e.getAsJsonObject() : new JsonObject();
    }

    /** A string member, or "" when missing or not a string. */
    static String string(JsonObject o, String name) {
        JsonElement e = o.get(name);
        return e != null && e.isJsonPrimitive() && e.getAsJsonPrimitive().isString() ? e.getAsString() : "";
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
