package io.sandboxd.controller.app;

import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.InputStream;
import tools.jackson.core.JacksonException;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.ObjectMapper;

/**
 * fabric8's serialization, reading JSON without copying it first.
 *
 * <p>Why: to tell JSON from YAML, fabric8 wraps every input in a new {@code BufferedInputStream}
 * (an 8 KiB array) and peeks at its first character; a watch event, which arrives as a String, is
 * first encoded to a byte array for that. In a JFR profile of a warm claim burst ({@code
 * sandboxd-bench controller}) those two copies were 21% of the controller's allocation (2.5 of 11.8
 * GB): the buffers 17%, the encoding 4%. Here a String is read as it is, a stream that can mark its
 * place is peeked at without a wrapper, and anything that does not start like JSON (YAML) goes to
 * fabric8 unchanged, as do streams that cannot mark.
 */
final class UnbufferedSerialization extends KubernetesSerialization {
    /**
     * The mapper fabric8 reads with, as {@link #configureMapper} returns it. Set during the super
     * constructor, so it must have no initializer (one would run after it and clear it).
     */
    private ObjectMapper json;

    UnbufferedSerialization(ObjectMapper mapper) {
        super(mapper, true);
    }

    @Override
    protected ObjectMapper configureMapper(ObjectMapper mapper) {
        json = super.configureMapper(mapper);
        return json;
    }

    @Override
    public <T> T unmarshal(String str, TypeReference<T> type) {
        return startsLikeJson(str) ? read(str, json.getTypeFactory().constructType(type)) : super.unmarshal(str, type);
    }

    @Override
    public <T> T unmarshal(String str, Class<T> type) {
        return startsLikeJson(str) ? read(str, json.getTypeFactory().constructType(type)) : super.unmarshal(str, type);
    }

    private <T> T read(String str, JavaType type) {
        try {
            return json.readerFor(type).readValue(str);
        } catch (JacksonException e) {
            throw readFailure(e);
        }
    }

    @Override
    public <T> T unmarshal(InputStream in, TypeReference<T> type) {
        if (!in.markSupported()) return super.unmarshal(in, type);
        try {
            in.mark(Integer.MAX_VALUE);
            int c;
            do {
                c = in.read();
            } while (c != -1 && Character.isWhitespace(c));
            in.reset();
            if (c != '{' && c != '[') return super.unmarshal(in, type);
            return json.readerFor(type).readValue(in);
        } catch (IOException | JacksonException e) {
            throw readFailure(e);
        }
    }

    /** As fabric8 words a read that failed. */
    private static KubernetesClientException readFailure(Exception e) {
        return new KubernetesClientException("An error has occurred.", e);
    }

    static boolean startsLikeJson(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!Character.isWhitespace(c)) return c == '{' || c == '[';
        }
        return false;
    }
}
