package io.sandboxd.conformance.suite;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class HangSiteTest {
    private static StackTraceElement frame(String cls, String method, String file, int line) {
        return new StackTraceElement(cls, method, file, line);
    }

    private static final StackTraceElement PARK = frame("jdk.internal.misc.Unsafe", "park", "Unsafe.java", -2);
    private static final StackTraceElement GRPC =
            frame("io.grpc.stub.ClientCalls", "blockingUnaryCall", "ClientCalls.java", 200);
    private static final StackTraceElement CLIENT_INNER =
            frame("io.sandboxd.client.GrpcCalls", "unary", "GrpcCalls.java", 40);
    private static final StackTraceElement CLIENT_API =
            frame("io.sandboxd.client.CodeContexts", "create", "CodeContexts.java", 55);
    private static final StackTraceElement CHECK =
            frame("io.sandboxd.conformance.checks.CodeChecks", "create", "CodeChecks.java", 57);
    private static final StackTraceElement RUNNER =
            frame("io.sandboxd.conformance.suite.Runner", "lambda$runOne$0", "Runner.java", 62);
    private static final StackTraceElement POOL =
            frame("java.util.concurrent.FutureTask", "run", "FutureTask.java", 317);

    @Test
    void aClientCallIsNamedByItsPublicMethodAndTheCheckLineThatMadeIt() {
        assertThat(HangSite.describe(
                        new StackTraceElement[] {PARK, GRPC, CLIENT_INNER, CLIENT_API, CHECK, RUNNER, POOL}))
                .isEqualTo("waiting in CodeContexts.create, called at CodeChecks.java:57");
    }

    @Test
    void aCheckWaitingInItsOwnCodeIsNamedByItsLine() {
        assertThat(HangSite.describe(new StackTraceElement[] {PARK, CHECK, RUNNER, POOL}))
                .isEqualTo("at CodeChecks.java:57 (CodeChecks.create)");
    }

    @Test
    void aClientFrameAboveTheCheckIsNotTheCallItWaitsIn() {
        StackTraceElement callerAbove = frame("io.sandboxd.client.cli.Main", "run", "Main.java", 9);
        assertThat(HangSite.describe(new StackTraceElement[] {PARK, CHECK, callerAbove}))
                .isEqualTo("at CodeChecks.java:57 (CodeChecks.create)");
    }

    @Test
    void aNestedOrLambdaClassIsNamedByItsOuterClass() {
        StackTraceElement nested =
                frame("io.sandboxd.client.CodeContexts$Execution", "await", "CodeContexts.java", 170);
        StackTraceElement lambda =
                frame("io.sandboxd.conformance.checks.CodeChecks$$Lambda/0x1", "run", "CodeChecks.java", 81);
        assertThat(HangSite.describe(new StackTraceElement[] {PARK, nested, lambda, RUNNER}))
                .isEqualTo("waiting in CodeContexts.await, called at CodeChecks.java:81");
    }

    @Test
    void aFrameWithoutItsFileNameIsNamedByItsClass() {
        StackTraceElement noFile = frame("io.sandboxd.conformance.checks.CodeChecks", "create", null, -1);
        assertThat(HangSite.describe(new StackTraceElement[] {PARK, CLIENT_API, noFile}))
                .isEqualTo("waiting in CodeContexts.create, called at CodeChecks:-1");
    }

    @Test
    void aStackWithoutTheSuiteSaysNothing() {
        assertThat(HangSite.describe(new StackTraceElement[] {PARK, GRPC, POOL}))
                .isEmpty();
        assertThat(HangSite.describe(new StackTraceElement[0])).isEmpty();
    }
}
