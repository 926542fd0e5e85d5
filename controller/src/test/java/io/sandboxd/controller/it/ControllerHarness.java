package io.sandboxd.controller.it;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ContainerPortBuilder;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.Operator;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sandboxd.controller.app.ControllerOptions;
import io.sandboxd.controller.app.Controllers;
import io.sandboxd.controller.model.Conds;
import io.sandboxd.controller.model.Sandbox;
import io.sandboxd.controller.model.SandboxSpec;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/** One controller + fake kubelet on one mock API server, shared by a test class. */
final class ControllerHarness implements AutoCloseable {
    private static final AtomicInteger NS = new AtomicInteger();
    // The mock server logs every request at INFO through JUL; that drowns the controller's own logs.
    private static final java.util.logging.Logger MOCK_LOG =
            java.util.logging.Logger.getLogger("io.fabric8.mockwebserver");

    static {
        MOCK_LOG.setLevel(java.util.logging.Level.WARNING);
    }

    /** Tuned for the mock (more connections, longer timeouts); tests use it instead of the injected one. */
    final KubernetesClient client;

    final KubernetesClient operatorClient;
    final MeterRegistry registry;
    final Operator operator;
    final FakeKubelet kubelet;

    final io.fabric8.kubernetes.client.server.mock.KubernetesMockServer server;

    /** Reconciles get the cached primary itself, as in production; this also checks none was changed. */
    final MutationCheckingCloner primaries = new MutationCheckingCloner();

    /**
     * Owns its CRUD mock server rather than using the JUnit extension: after a heavy test the
     * single-threaded server can take longer to drain than the extension's shutdown timeout. The
     * dispatcher is {@link RecordingCrudDispatcher}: the CRUD mock with the API server's answers
     * where the mock has none.
     */
    ControllerHarness() {
        this(new RecordingCrudDispatcher());
    }

    /** With a given CRUD dispatcher, e.g. one that records requests. */
    ControllerHarness(io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher dispatcher) {
        this(dispatcher, new SimpleMeterRegistry());
    }

    /** With a given dispatcher and the registry the controller's meters go to (e.g. the Prometheus one). */
    ControllerHarness(
            io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher dispatcher, MeterRegistry registry) {
        this.registry = registry;
        server = new io.fabric8.kubernetes.client.server.mock.KubernetesMockServer(
                new io.fabric8.mockwebserver.Context(),
                new io.fabric8.mockwebserver.MockWebServer(),
                new java.util.HashMap<>(),
                dispatcher,
                true);
        server.init();
        KubernetesClient injected = server.createClient();
        this.client = new io.fabric8.kubernetes.client.KubernetesClientBuilder()
                .withConfig(Controllers.tunedForMock(injected.getConfiguration()))
                .build();
        this.kubelet = new FakeKubelet(client);
        this.operatorClient = Controllers.client(Controllers.tunedForMock(injected.getConfiguration()));
        ControllerOptions opts =
                new ControllerOptions("cluster.local", true, ControllerOptions.Workers.defaults(), Clock.systemUTC());
        this.operator = Controllers.build(
                operatorClient,
                opts,
                registry,
                null,
                Controllers.workers(opts.workers()),
                Controllers.DEFAULT_CACHE_SYNC_TIMEOUT,
                primaries);
        operator.start();
    }

    static String namespace(String prefix) {
        return prefix + "-" + NS.incrementAndGet();
    }

    static Sandbox sandbox(String ns, String name) {
        Sandbox sb = new Sandbox();
        sb.getMetadata().setName(name);
        sb.getMetadata().setNamespace(ns);
        SandboxSpec spec = new SandboxSpec();
        PodTemplateSpec tpl = new PodTemplateSpec();
        tpl.setSpec(new PodSpecBuilder()
                .withContainers(new ContainerBuilder()
                        .withName("main")
                        .withImage("sandboxd:test")
                        .withPorts(
                                new ContainerPortBuilder()
                                        .withName("http")
                                        .withContainerPort(8080)
                                        .build(),
                                new ContainerPortBuilder()
                                        .withContainerPort(9090)
                                        .build())
                        .build())
                .build());
        spec.setPodTemplate(tpl);
        sb.setSpec(spec);
        return sb;
    }

    /** Sets one spec field with a JSON patch: no resourceVersion, so no 409 race with the controller. */
    void patchSandboxSpec(String ns, String name, String field, Object value) {
        String v = value instanceof String ? "\"" + value + "\"" : String.valueOf(value);
        client.resources(Sandbox.class)
                .inNamespace(ns)
                .withName(name)
                .patch(
                        io.fabric8.kubernetes.client.dsl.base.PatchContext.of(
                                io.fabric8.kubernetes.client.dsl.base.PatchType.JSON),
                        "[{\"op\":\"add\",\"path\":\"/spec/" + field + "\",\"value\":" + v + "}]");
    }

    Sandbox get(String ns, String name) {
        return client.resources(Sandbox.class).inNamespace(ns).withName(name).get();
    }

    Condition condition(String ns, String name, String type) {
        Sandbox sb = get(ns, name);
        return sb == null || sb.getStatus() == null
                ? null
                : Conds.find(sb.getStatus().getConditions(), type);
    }

    boolean hasCondition(String ns, String name, String type, String status, String reason) {
        Condition c = condition(ns, name, type);
        return c != null && status.equals(c.getStatus()) && reason.equals(c.getReason());
    }

    /** JOSDK's count of reconciles submitted for {@code controller} (a name from {@link Controllers}). */
    double reconcilesStarted(String controller) {
        var c = registry.find("reconciliations.started.total")
                .tag("controller.name", controller)
                .counter();
        return c == null ? 0 : c.count();
    }

    @Override
    public void close() {
        operator.stop();
        List<String> changed = primaries.changedPrimaries();
        kubelet.close();
        operatorClient.close();
        client.close();
        try {
            server.destroy();
        } catch (IllegalStateException e) {
            // still draining queued work; the JVM exit reclaims it
        }
        MutationCheckingCloner.assertNoneChanged(changed);
    }
}
