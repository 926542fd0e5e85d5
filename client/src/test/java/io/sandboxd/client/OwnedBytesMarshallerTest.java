package io.sandboxd.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import io.grpc.KnownLength;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.sandboxd.api.durable.v1alpha1.AttachEvent;
import io.sandboxd.api.durable.v1alpha1.AttachRequest;
import io.sandboxd.api.durable.v1alpha1.DurableProcessServiceGrpc;
import io.sandboxd.api.durable.v1alpha1.Output;
import io.sandboxd.api.durable.v1alpha1.Stream;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The Attach/Start response parser that copies an event's data once. */
class OwnedBytesMarshallerTest {
    final MethodDescriptor<AttachRequest, AttachEvent> method = OwnedBytesMarshaller.responsesOf(
            DurableProcessServiceGrpc.getAttachMethod(), AttachEvent.getDefaultInstance());

    static AttachEvent output(long offset, byte fill, int size) {
        byte[] data = new byte[size];
        Arrays.fill(data, fill);
        return AttachEvent.newBuilder()
                .setOutput(Output.newBuilder()
                        .setStream(Stream.STREAM_STDOUT)
                        .setOffset(offset)
                        .setData(ByteString.copyFrom(data)))
                .build();
    }

    /** A transport's message stream over a buffer it reuses for the next message, as grpc's are. */
    static class Reused extends ByteArrayInputStream implements KnownLength {
        Reused(byte[] buffer, int length) {
            super(buffer, 0, length);
        }
    }

    @Test
    void anEventKeepsItsBytesAfterTheTransportReusesItsBufferAndTheNextEventIsParsed() throws Exception {
        AttachEvent first = output(1 << 20, (byte) 'a', 256 * 1024);
        AttachEvent second = output((1 << 20) + 256 * 1024, (byte) 'b', 256 * 1024); // as long as the first
        byte[] buffer = new byte[second.getSerializedSize()];

        first.writeTo(CodedOutputStream.newInstance(buffer));
        AttachEvent parsedFirst = method.parseResponse(new Reused(buffer, first.getSerializedSize()));
        second.writeTo(CodedOutputStream.newInstance(buffer));
        AttachEvent parsedSecond = method.parseResponse(new Reused(buffer, second.getSerializedSize()));

        assertThat(parsedFirst).isEqualTo(first);
        assertThat(parsedSecond).isEqualTo(second);
        assertThat(method.getFullMethodName())
                .isEqualTo(DurableProcessServiceGrpc.getAttachMethod().getFullMethodName());
    }

    @Test
    void aStreamOfUnknownLengthAndAnEmptyMessageParseAsWithGrpcsMarshaller() {
        AttachEvent e = output(7, (byte) 'x', 100);
        InputStream unknownLength = new java.io.FilterInputStream(new ByteArrayInputStream(e.toByteArray())) {};

        assertThat(method.parseResponse(unknownLength)).isEqualTo(e);
        assertThat(method.parseResponse(new Reused(new byte[0], 0))).isEqualTo(AttachEvent.getDefaultInstance());
        assertThat(method.parseResponse(method.streamResponse(e))).isEqualTo(e);
    }

    @Test
    void aMessageShorterThanItsLengthOrNotProtobufIsAnInternalError() {
        byte[] bytes = output(0, (byte) 'x', 100).toByteArray();
        InputStream shortRead = new Reused(bytes, bytes.length) {
            @Override
            public int available() {
                return bytes.length + 10;
            }
        };
        byte[] garbage = {(byte) 0xff, (byte) 0xff, (byte) 0xff};

        assertThatThrownBy(() -> method.parseResponse(shortRead))
                .isInstanceOfSatisfying(
                        StatusRuntimeException.class,
                        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INTERNAL))
                .hasMessageContaining("cannot read the message");
        assertThatThrownBy(() -> method.parseResponse(new Reused(garbage, garbage.length)))
                .isInstanceOfSatisfying(
                        StatusRuntimeException.class,
                        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INTERNAL))
                .hasMessageContaining("invalid protobuf");
    }
}
