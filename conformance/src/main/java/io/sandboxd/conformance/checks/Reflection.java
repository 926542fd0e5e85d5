package io.sandboxd.conformance.checks;

import com.google.protobuf.ByteString;
import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.EnumDescriptorProto;
import com.google.protobuf.DescriptorProtos.EnumValueDescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.MethodDescriptorProto;
import com.google.protobuf.DescriptorProtos.ServiceDescriptorProto;
import io.grpc.Channel;
import io.grpc.Status;
import io.grpc.reflection.v1.ServerReflectionGrpc;
import io.grpc.reflection.v1.ServerReflectionRequest;
import io.grpc.reflection.v1.ServerReflectionResponse;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Minimal gRPC server-reflection client (v1, falling back to v1alpha) and a descriptor normaliser. */
final class Reflection {
    private Reflection() {}

    /** Sends one reflection request; the response, or a failed status (UNIMPLEMENTED when absent). */
    static ServerReflectionResponse query(Channel channel, ServerReflectionRequest request) throws Exception {
        try {
            return queryV1(channel, request);
        } catch (io.grpc.StatusRuntimeException e) {
            if (e.getStatus().getCode() != Status.Code.UNIMPLEMENTED) {
                throw e;
            }
            return queryV1Alpha(channel, request);
        }
    }

    private static ServerReflectionResponse queryV1(Channel channel, ServerReflectionRequest request) throws Exception {
        CompletableFuture<ServerReflectionResponse> result = new CompletableFuture<>();
        StreamObserver<ServerReflectionRequest> req = ServerReflectionGrpc.newStub(channel)
                .withDeadlineAfter(20, TimeUnit.SECONDS)
                .serverReflectionInfo(observer(result));
        req.onNext(request);
        req.onCompleted();
        return get(result);
    }

    private static ServerReflectionResponse queryV1Alpha(Channel channel, ServerReflectionRequest request)
            throws Exception {
        CompletableFuture<io.grpc.reflection.v1alpha.ServerReflectionResponse> result = new CompletableFuture<>();
        StreamObserver<io.grpc.reflection.v1alpha.ServerReflectionRequest> req =
                io.grpc.reflection.v1alpha.ServerReflectionGrpc.newStub(channel)
                        .withDeadlineAfter(20, TimeUnit.SECONDS)
                        .serverReflectionInfo(observer(result));
        req.onNext(io.grpc.reflection.v1alpha.ServerReflectionRequest.parseFrom(request.toByteString()));
        req.onCompleted();
        return ServerReflectionResponse.parseFrom(get(result).toByteString());
    }

    private static <T> StreamObserver<T> observer(CompletableFuture<T> result) {
        return new StreamObserver<>() {
            @Override
            public void onNext(T value) {
                result.complete(value);
            }

            @Override
            public void onError(Throwable t) {
                result.completeExceptionally(t);
            }

            @Override
            public void onCompleted() {
                result.completeExceptionally(Status.INTERNAL
                        .withDescription("reflection stream ended without a response")
                        .asRuntimeException());
            }
        };
    }

    private static <T> T get(CompletableFuture<T> f) throws Exception {
        try {
            return f.get(25, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof Exception ex) {
                throw ex;
            }
            throw e;
        }
    }

    /** The file descriptors the runtime returns for a symbol (the file and possibly its dependencies). */
    static List<FileDescriptorProto> filesContaining(Channel channel, String symbol) throws Exception {
        ServerReflectionResponse r = query(
                channel,
                ServerReflectionRequest.newBuilder()
                        .setFileContainingSymbol(symbol)
                        .build());
        if (r.hasErrorResponse()) {
            throw Status.fromCodeValue(r.getErrorResponse().getErrorCode())
                    .withDescription(r.getErrorResponse().getErrorMessage())
                    .asRuntimeException();
        }
        List<FileDescriptorProto> out = new ArrayList<>();
        for (ByteString b : r.getFileDescriptorResponse().getFileDescriptorProtoList()) {
            out.add(FileDescriptorProto.parseFrom(b));
        }
        return out;
    }

    static List<String> services(Channel channel) throws Exception {
        ServerReflectionResponse r = query(
                channel,
                ServerReflectionRequest.newBuilder().setListServices("").build());
        List<String> out = new ArrayList<>();
        r.getListServicesResponse().getServiceList().forEach(s -> out.add(s.getName()));
        return out;
    }

    /**
     * Everything on the wire about a file, one fact per line: package, imports, messages with
     * every field's name, number, type, label and oneof, enum values, methods and streaming.
     * Options (java_package etc.) are deliberately left out: they are not on the wire.
     */
    static TreeSet<String> wireFacts(FileDescriptorProto f) {
        TreeSet<String> facts = new TreeSet<>();
        facts.add("package " + f.getPackage());
        f.getDependencyList().forEach(d -> facts.add("import " + d));
        for (DescriptorProto m : f.getMessageTypeList()) {
            message(facts, f.getPackage() + "." + m.getName(), m);
        }
        for (EnumDescriptorProto e : f.getEnumTypeList()) {
            enumFacts(facts, f.getPackage() + "." + e.getName(), e);
        }
        for (ServiceDescriptorProto s : f.getServiceList()) {
            facts.add("service " + f.getPackage() + "." + s.getName());
            for (MethodDescriptorProto m : s.getMethodList()) {
                facts.add("rpc " + f.getPackage() + "." + s.getName() + "/" + m.getName() + "("
                        + (m.getClientStreaming() ? "stream " : "") + m.getInputType() + ") returns ("
                        + (m.getServerStreaming() ? "stream " : "") + m.getOutputType() + ")");
            }
        }
        return facts;
    }

    private static void message(TreeSet<String> facts, String name, DescriptorProto m) {
        facts.add("message " + name);
        if (m.getOptions().getMapEntry()) {
            facts.add("message " + name + " is a map entry");
        }
        for (FieldDescriptorProto fd : m.getFieldList()) {
            String oneof = fd.hasOneofIndex()
                    ? " oneof " + m.getOneofDecl(fd.getOneofIndex()).getName()
                    : "";
            facts.add("field " + name + "." + fd.getName() + " = " + fd.getNumber() + " "
                    + fd.getLabel().name().replace("LABEL_", "").toLowerCase()
                    + " " + fd.getType().name().replace("TYPE_", "").toLowerCase()
                    + (fd.getTypeName().isEmpty() ? "" : " " + fd.getTypeName())
                    + oneof + (fd.getProto3Optional() ? " proto3_optional" : ""));
        }
        for (DescriptorProto nested : m.getNestedTypeList()) {
            message(facts, name + "." + nested.getName(), nested);
        }
        for (EnumDescriptorProto e : m.getEnumTypeList()) {
            enumFacts(facts, name + "." + e.getName(), e);
        }
    }

    private static void enumFacts(TreeSet<String> facts, String name, EnumDescriptorProto e) {
        facts.add("enum " + name);
        for (EnumValueDescriptorProto v : e.getValueList()) {
            facts.add("enum value " + name + "." + v.getName() + " = " + v.getNumber());
        }
    }
}
