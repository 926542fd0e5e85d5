package io.sandboxd.daemon.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Attributes;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.Status;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The slots of one connection: at most N calls may receive their message at once, the rest in arrival order. */
class InboundMessageGateTest {
    /** Records what reaches the transport. */
    static final class FakeCall extends ServerCall<Object, Object> {
        final String name;
        final List<String> log;

        FakeCall(String name, List<String> log) {
            this.name = name;
            this.log = log;
        }

        @Override
        public void request(int n) {
            log.add(name + ":request" + n);
        }

        @Override
        public void sendHeaders(Metadata headers) {}

        @Override
        public void sendMessage(Object message) {}

        @Override
        public void close(Status status, Metadata trailers) {
            log.add(name + ":close");
        }

        @Override
        public boolean isCancelled() {
            return false;
        }

        @Override
        public MethodDescriptor<Object, Object> getMethodDescriptor() {
            return null;
        }

        @Override
        public Attributes getAttributes() {
            return Attributes.EMPTY;
        }
    }

    @Test
    void requestsWaitForASlotAndGetItInOrder() {
        List<String> log = new ArrayList<>();
        InboundMessageGate.Slots slots = new InboundMessageGate.Slots(2);
        List<InboundMessageGate.GatedCall<Object, Object>> calls = new ArrayList<>();
        for (String n : List.of("a", "b", "c", "d")) {
            calls.add(new InboundMessageGate.GatedCall<>(new FakeCall(n, log), slots));
        }
        calls.forEach(c -> c.request(2));
        assertThat(log).containsExactly("a:request2", "b:request2");
        slots.release(calls.get(1)); // b's message arrived
        assertThat(log).containsExactly("a:request2", "b:request2", "c:request2");
        calls.get(3).close(Status.CANCELLED, new Metadata()); // d gives up while waiting: no slot for it
        slots.release(calls.get(0));
        slots.release(calls.get(2));
        assertThat(log).containsExactly("a:request2", "b:request2", "c:request2", "d:close");
        // released slots are free again; a second release of the same call frees nothing twice
        slots.release(calls.get(2));
        List<InboundMessageGate.GatedCall<Object, Object>> more = new ArrayList<>();
        for (String n : List.of("e", "f", "g")) {
            more.add(new InboundMessageGate.GatedCall<>(new FakeCall(n, log), slots));
        }
        more.forEach(c -> c.request(1));
        assertThat(log).endsWith("e:request1", "f:request1").doesNotContain("g:request1");
    }
}
