package io.sandboxd.controller.it;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Plays the kubelet on the mock API server (nothing else sets Pod status there): in namespaces
 * switched to auto mode, every new Pod is bound to a node and marked Running + Ready with an IP.
 */
final class FakeKubelet implements AutoCloseable {
    private final KubernetesClient client;
    private final Set<String> autoNamespaces = ConcurrentHashMap.newKeySet();
    private final AtomicInteger ipSeq = new AtomicInteger(1);
    private final ExecutorService pool = Executors.newFixedThreadPool(4);
    private final SharedIndexInformer<Pod> informer;
    final AtomicInteger podsStarted = new AtomicInteger();

    FakeKubelet(KubernetesClient client) {
        this.client = client;
        informer = client.pods().inAnyNamespace().inform(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod p) {
                if (autoNamespaces.contains(p.getMetadata().getNamespace()) && p.getStatus() == null
                        || autoNamespaces.contains(p.getMetadata().getNamespace())
                                && p.getStatus().getPhase() == null) {
                    pool.submit(() -> start(
                            p.getMetadata().getNamespace(), p.getMetadata().getName()));
                }
            }

            @Override
            public void onUpdate(Pod o, Pod n) {}

            @Override
            public void onDelete(Pod p, boolean unknown) {}
        });
    }

    void auto(String namespace) {
        autoNamespaces.add(namespace);
    }

    /** Binds the Pod to node-1 and reports it Running, Ready, with one IP. */
    void start(String ns, String name) {
        int n = ipSeq.getAndIncrement();
        String ip = "10.0." + (n / 250) + "." + (n % 250 + 1);
        try {
            client.pods()
                    .inNamespace(ns)
                    .withName(name)
                    .patch(
                            PatchContext.of(PatchType.JSON),
                            "[{\"op\":\"add\",\"path\":\"/spec/nodeName\",\"value\":\"node-1\"}]");
            client.pods()
                    .inNamespace(ns)
                    .withName(name)
                    .status()
                    .patch(
                            PatchContext.of(PatchType.JSON),
                            "[{\"op\":\"add\",\"path\":\"/status\",\"value\":{\"phase\":\"Running\",\"podIP\":\"" + ip
                                    + "\",\"podIPs\":[{\"ip\":\"" + ip + "\"}],"
                                    + "\"conditions\":[{\"type\":\"PodScheduled\",\"status\":\"True\"},{\"type\":\"Ready\",\"status\":\"True\"}]}}]");
            podsStarted.incrementAndGet();
        } catch (KubernetesClientException e) {
            // the Pod went away before we got to it
        }
    }

    void setPhase(String ns, String name, String phase) {
        client.pods()
                .inNamespace(ns)
                .withName(name)
                .status()
                .patch(
                        PatchContext.of(PatchType.JSON),
                        "[{\"op\":\"add\",\"path\":\"/status\",\"value\":{\"phase\":\"" + phase
                                + "\",\"conditions\":[{\"type\":\"PodScheduled\",\"status\":\"True\"},"
                                + "{\"type\":\"Ready\",\"status\":\"False\"}]}}]");
    }

    @Override
    public void close() {
        informer.close();
        pool.shutdownNow();
    }
}
