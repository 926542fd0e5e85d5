package io.sandboxd.router.resolve;

import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.FilterWatchListDeletable;
import io.fabric8.kubernetes.client.dsl.PodResource;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A fabric8 Pod informer over sandbox Pods (label {@code agents.x-k8s.io/sandbox-name-hash}) that
 * keeps two small maps of Ready Pod IPs, so a lookup is one hash probe on the event loop and the
 * router needs no Service per sandbox.
 */
public final class InformerPodCache implements PodCache, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(InformerPodCache.class);

    /**
     * @param podKey ns/podName, so a stale delete never removes a newer pod's entry
     * @param sandboxKey ns/sandboxName it serves, checked on a UID lookup
     */
    private record Entry(String podKey, String sandboxKey, String ip) {}

    private final Map<String, Entry> byName = new ConcurrentHashMap<>();
    private final Map<String, Entry> byUid = new ConcurrentHashMap<>();
    private final SharedIndexInformer<Pod> informer;

    /** @param namespace watch one namespace, or all when null/empty */
    public InformerPodCache(KubernetesClient client, String namespace) {
        FilterWatchListDeletable<Pod, PodList, PodResource> pods = namespace == null || namespace.isEmpty()
                ? client.pods().inAnyNamespace().withLabel(SandboxPods.NAME_HASH_LABEL)
                : client.pods().inNamespace(namespace).withLabel(SandboxPods.NAME_HASH_LABEL);
        this.informer = pods.runnableInformer(0);
        informer.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod p) {
                apply(null, p);
            }

            @Override
            public void onUpdate(Pod old, Pod p) {
                apply(old, p);
            }

            @Override
            public void onDelete(Pod p, boolean unknownFinalState) {
                remove(p);
            }
        });
    }

    /** Starts the informer; the stage completes when the initial list has been applied. */
    public CompletionStage<Void> start() {
        return informer.start().whenComplete((v, t) -> {
            if (t != null) {
                log.error("Pod informer failed to start: {}", t.toString());
            } else {
                log.info("Pod informer synced: {} routable sandbox pods", size());
            }
        });
    }

    private void apply(Pod old, Pod p) {
        if (old != null) {
            remove(old);
        }
        if (!SandboxPods.isRoutable(p)) {
            remove(p);
            return;
        }
        String ns = p.getMetadata().getNamespace();
        Entry e = new Entry(
                ns + "/" + p.getMetadata().getName(),
                ns + "/" + SandboxPods.sandboxName(p),
                p.getStatus().getPodIP());
        OwnerReference owner = SandboxPods.sandboxOwner(p);
        if (owner != null && owner.getUid() != null) {
            byUid.put(owner.getUid(), e);
        }
        if (!SandboxPods.isUnclaimedWarmPoolMember(p)) {
            byName.put(ns + "/" + SandboxPods.sandboxName(p), e);
        }
    }

    private void remove(Pod p) {
        String ns = p.getMetadata().getNamespace();
        String podKey = ns + "/" + p.getMetadata().getName();
        byName.computeIfPresent(
                ns + "/" + SandboxPods.sandboxName(p), (k, e) -> e.podKey().equals(podKey) ? null : e);
        OwnerReference owner = SandboxPods.sandboxOwner(p);
        if (owner != null && owner.getUid() != null) {
            byUid.computeIfPresent(owner.getUid(), (k, e) -> e.podKey().equals(podKey) ? null : e);
        }
    }

    @Override
    public String podIpByName(String namespace, String name) {
        Entry e = byName.get(namespace + "/" + name);
        return e == null ? null : e.ip();
    }

    @Override
    public String podIpByUid(String namespace, String name, String uid) {
        Entry e = byUid.get(uid);
        return e == null || !e.sandboxKey().equals(namespace + "/" + name) ? null : e.ip();
    }

    @Override
    public void evict(String namespace, String name, String uid) {
        byName.remove(namespace + "/" + name);
        if (uid != null) {
            byUid.remove(uid);
        }
    }

    @Override
    public boolean hasSynced() {
        return informer.hasSynced();
    }

    @Override
    public int size() {
        return byName.size();
    }

    @Override
    public void close() {
        informer.close();
    }
}
