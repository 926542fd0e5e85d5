package io.sandboxd.client;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import com.google.protobuf.UnsafeByteOperations;
import io.grpc.KnownLength;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.io.IOException;
import java.io.InputStream;

/**
 * Parses a response with one copy of its bytes instead of two: grpc-java's protobuf marshaller
 * reads a message into a reused per-thread array and then copies every {@code bytes} field out of
 * it again; this one reads the message into an array of its own, which nobody else writes, and
 * lets the parsed {@code bytes} fields share it. For durable output events (up to 256 KiB of data
 * each) the second copy was the client's largest single cost of a journal replay (bench durable,
 * replay section). Requests and small responses keep grpc's marshaller.
 */
final class OwnedBytesMarshaller<T extends MessageLite> implements MethodDescriptor.Marshaller<T> {
    private final MethodDescriptor.Marshaller<T> delegate;
    private final Parser<T> parser;

    private OwnedBytesMarshaller(MethodDescriptor.Marshaller<T> delegate, Parser<T> parser) {
        this.delegate = delegate;
        this.parser = parser;
    }

    /** {@code method} with its responses parsed by this marshaller. */
    @SuppressWarnings("unchecked")
    static <Q, T extends MessageLite> MethodDescriptor<Q, T> responsesOf(MethodDescriptor<Q, T> method, T prototype) {
        return method.toBuilder(
                        method.getRequestMarshaller(),
                        new OwnedBytesMarshaller<>(
                                method.getResponseMarshaller(), (Parser<T>) prototype.getParserForType()))
                .build();
    }

    @Override
    public InputStream stream(T value) {
        return delegate.stream(value);
    }

    @Override
    public T parse(InputStream stream) {
        if (!(stream instanceof KnownLength)) {
            return delegate.parse(stream);
        }
        try {
            byte[] bytes = new byte[stream.available()];
            int n = 0;
            while (n < bytes.length) {
                int r = stream.read(bytes, n, bytes.length - n);
                if (r < 0) {
                    throw new IOException("the message ended after " + n + " of " + bytes.length + " bytes");
                }
                n += r;
            }
            // The array is this message's alone from here on, so its fields may alias it.
            CodedInputStream in = UnsafeByteOperations.unsafeWrap(bytes).newCodedInput();
            in.enableAliasing(true);
            in.setSizeLimit(Integer.MAX_VALUE); // grpc's maxInboundMessageSize already bounded it
            T message = parser.parseFrom(in);
            in.checkLastTagWas(0);
            return message;
        } catch (InvalidProtocolBufferException e) {
            throw Status.INTERNAL
                    .withDescription("invalid protobuf byte sequence")
                    .withCause(e)
                    .asRuntimeException();
        } catch (IOException e) {
            throw Status.INTERNAL
                    .withDescription("cannot read the message")
                    .withCause(e)
                    .asRuntimeException();
        }
    }
}
