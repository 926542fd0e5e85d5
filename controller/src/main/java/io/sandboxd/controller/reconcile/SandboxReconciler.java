package io.sandboxd.controller.reconcile;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.sandboxd.controller.core.CreateBody;
import io.sandboxd.controller.core.DesiredPod;
import io.sandboxd.controller.core.DesiredPvc;
import io.sandboxd.controller.core.DesiredService;
import io.sandboxd.controller.core.Expiry;
import io.sandboxd.controller.core.JsonPatch;
import io.sandboxd.controller.core.Keys;
import io.sandboxd.controller.core.NameHash;
import io.sandboxd.controller.core.Ownership;
import io.sandboxd.controller.core.SandboxConditions;
import io.sandboxd.controller.core.SandboxPodChanges;
import io.sandboxd.controller.core.SpecValidator;
import io.sandboxd.controller.model.Conds;
import io.sandboxd.controller.model.Sandbox;
import io.sandboxd.controller.model.SandboxSpec;
import io.sandboxd.controller.model.SandboxStatus;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reconciles a Sandbox into its Pod, optional headless Service and PVCs (as upstream agent-sandbox does). The
 * desired objects and the conditions come from the pure builders in {@code core}; this class
 * only reads caches and talks to the API server.
 */
public class SandboxReconciler implements Reconciler<Sandbox> {
    private static final Logger LOG = LoggerFactory.getLogger(SandboxReconciler.class);
    static final String HASH_INDEX = "sandbox-name-hash";
    /** A loopback watch delivers the newer version in well under this; a cluster's in tens of ms. */
    static final Duration STALE_COPY_RETRY = Duration.ofMillis(100);

    private final String clusterDomain;
    private final Clock clock;
    private InformerEventSource<Pod, Sandbox> pods;
    private InformerEventSource<Service, Sandbox> services;
    private final SharedSandboxes shared;
    private final StatusMemo<SandboxStatus> written = new StatusMemo<>();
    private final SpecJsonByValue<PodSpec> podSpecs = new SpecJsonByValue<>();

    /** For the primary's event source: our own status writes' echoes set off no reconcile. */
    public io.javaoperatorsdk.operator.processing.event.source.filter.OnUpdateFilter<Sandbox> primaryUpdates() {
        return new OwnStatusEchoes<>(written, Sandbox::getStatus);
    }

    /** @param shared where the claim and pool controllers hear of Sandboxes from this controller's watch; null without them */
    public SandboxReconciler(String clusterDomain, Clock clock, SharedSandboxes shared) {
        this.clusterDomain = clusterDomain;
        this.clock = clock;
        this.shared = shared;
    }

    @Override
    public List<EventSource<?, Sandbox>> prepareEventSources(EventSourceContext<Sandbox> ctx) {
        pods = new InformerEventSource<>(
                InformerEventSourceConfiguration.from(Pod.class, Sandbox.class)
                        .withName("sandbox-pods")
                        .withLabelSelector(Keys.SANDBOX_NAME_HASH)
                        .withOnUpdateFilter(SandboxPodChanges::relevant)
                        .withSecondaryToPrimaryMapper(new OwnerOrSameNameMapper<>(Sandbox.GROUP, Sandbox.KIND, true))
                        .build(),
                ctx);
        pods.addIndexers(Map.of(
                HASH_INDEX,
                p -> List.of(p.getMetadata().getNamespace() + "/"
                        + p.getMetadata().getLabels().getOrDefault(Keys.SANDBOX_NAME_HASH, ""))));
        services = new InformerEventSource<>(
                InformerEventSourceConfiguration.from(Service.class, Sandbox.class)
                        .withName("sandbox-services")
                        .withLabelSelector(Keys.SANDBOX_NAME_HASH)
                        .withSecondaryToPrimaryMapper(new OwnerOrSameNameMapper<>(Sandbox.GROUP, Sandbox.KIND, true))
                        .build(),
                ctx);
        return shared == null ? List.of(pods, services) : List.of(pods, services, shared.relayFrom(ctx));
    }

    record PodResult(Pod pod, boolean owned, boolean lookupFailed, int ownedCount) {}

    record ServiceResult(boolean found, boolean exists) {}

    @Override
    public UpdateControl<Sandbox> reconcile(Sandbox cached, Context<Sandbox> ctx) {
        if (cached.getMetadata().getDeletionTimestamp() != null) return UpdateControl.noUpdate();
        Sandbox sb = withOwnMetadata(cached);
        KubernetesClient client = ctx.getClient();
        Instant now = clock.instant();
        SandboxStatus st = new SandboxStatus(written.current(sb, sb.getStatus()));
        Long gen = sb.getMetadata().getGeneration();
        SandboxSpec spec = sb.getSpec();
        Instant shutdown = Expiry.parse(spec.getShutdownTime());
        if (Expiry.expired(shutdown, now)) return expire(sb, st, ctx, now);

        String invalid = SpecValidator.validate(sb);
        List<String> errors = new ArrayList<>();
        // Set when the server refused a write guarded by a stale copy's resourceVersion (Kube.patch).
        AtomicBoolean staleCopy = new AtomicBoolean();
        PodResult pr;
        ServiceResult sr = new ServiceResult(st.getService() != null, st.getService() != null);
        if (invalid != null) {
            // Nothing is created or deleted for a spec no retry can fix; only what exists is reported.
            pr = lookupPod(sb, client, false);
        } else {
            try {
                reconcilePvcs(sb, client);
            } catch (ReconcileException e) {
                errors.add(e.getMessage());
            }
            pr = reconcilePod(sb, client, errors, staleCopy);
            if (pr.ownedCount() <= 1) sr = reconcileService(sb, st, client, errors, staleCopy);
        }

        if (pr.pod() != null && pr.owned()) {
            List<String> ips = SandboxConditions.podIPs(pr.pod());
            st.setPodIPs(ips.isEmpty() ? null : new ArrayList<>(ips));
            st.setNodeName(
                    pr.pod().getSpec() == null ? null : pr.pod().getSpec().getNodeName());
        } else {
            st.setPodIPs(null);
            st.setNodeName(null);
        }
        if (pr.pod() != null)
            st.setSelector(
                    Keys.SANDBOX_NAME_HASH + "=" + NameHash.of(sb.getMetadata().getName()));

        boolean serviceRequired = Boolean.TRUE.equals(spec.getService()) || (spec.getService() == null && sr.found());
        String error = errors.isEmpty() ? null : String.join("; ", errors);
        SandboxConditions.apply(
                st.getConditions(),
                new SandboxConditions.Observation(
                        spec.suspended(),
                        pr.pod(),
                        pr.owned(),
                        pr.lookupFailed(),
                        error,
                        pr.ownedCount(),
                        serviceRequired,
                        sr.exists(),
                        invalid),
                gen,
                now);

        UpdateControl<Sandbox> result = UpdateControl.noUpdate();
        if (shutdown != null) {
            Instant after = clock.instant();
            if (Expiry.expired(shutdown, after)) {
                SandboxConditions.markExpired(st.getConditions(), gen, after);
                result.rescheduleAfter(Duration.ofMillis(1));
            } else {
                result.rescheduleAfter(Expiry.requeueAfter(shutdown, after));
            }
        }
        // Not every newer version of a Pod reconciles its Sandbox (SandboxPodChanges), so a write
        // refused for a stale copy is tried again once the cache has had time to catch up.
        if (staleCopy.get()) result.rescheduleAfter(STALE_COPY_RETRY);
        writeStatus(ctx, sb, st);
        if (invalid != null) {
            LOG.atWarn()
                    .addKeyValue("sandbox", key(sb))
                    .addKeyValue("reason", SandboxConditions.REASON_INVALID)
                    .log("invalid configuration, not requeued: {}", invalid);
        }
        if (error != null) throw new ReconcileException(error);
        return result;
    }

    // ---- PVCs (§2.3) -------------------------------------------------------------------------

    private void reconcilePvcs(Sandbox sb, KubernetesClient client) {
        String ns = sb.getMetadata().getNamespace();
        String hash = NameHash.of(sb.getMetadata().getName());
        for (PersistentVolumeClaim want : DesiredPvc.build(sb)) {
            String n = want.getMetadata().getName();
            var res = client.persistentVolumeClaims().inNamespace(ns).withName(n);
            PersistentVolumeClaim have = res.get();
            if (have == null) {
                try {
                    CreateRequests.createUnread(client, want);
                    continue;
                } catch (KubernetesClientException e) {
                    if (!Kube.conflict(e)) throw new ReconcileException("create PVC \"" + n + "\": " + Kube.message(e));
                    have = res.get();
                    if (have == null) throw new ReconcileException("create PVC \"" + n + "\": " + Kube.message(e));
                }
            }
            OwnerReference ctl = Ownership.controllerOf(have);
            if (ctl != null) {
                if (!ctl.getUid().equals(sb.getMetadata().getUid())) {
                    throw new ReconcileException("PVC \"" + n + "\" is owned by " + Ownership.describe(ctl)
                            + ", not by sandbox \"" + sb.getMetadata().getName() + "\"");
                }
                continue;
            }
            if (!Ownership.adoptable(have, hash)) {
                throw new ReconcileException("cannot adopt unowned PVC \"" + n + "\": it has neither label "
                        + Keys.ADOPTABLE + "=true nor " + Keys.SANDBOX_NAME_HASH + "=" + hash);
            }
            Kube.patch(
                    client,
                    have,
                    new JsonPatch()
                            .add(
                                    "/metadata/ownerReferences",
                                    withController(have.getMetadata().getOwnerReferences(), sb)));
        }
    }

    // ---- Pod (§2.4, §2.5) --------------------------------------------------------------------

    private List<Pod> ownedPods(Sandbox sb) {
        String key = sb.getMetadata().getNamespace() + "/"
                + NameHash.of(sb.getMetadata().getName());
        return pods.byIndex(HASH_INDEX, key).stream()
                .filter(p -> Ownership.controlledBy(p, sb))
                .toList();
    }

    /** Looks the Pod up the upstream way; {@code act} allows clearing a stale pod-name annotation. */
    private PodResult lookupPod(Sandbox sb, KubernetesClient client, boolean act) {
        String ns = sb.getMetadata().getNamespace();
        String annotated = annotation(sb, Keys.POD_NAME);
        Pod pod = pods.get(new ResourceID(
                        annotated != null ? annotated : sb.getMetadata().getName(), ns))
                .orElse(null);
        // An annotation naming the Sandbox itself is not stale while its Pod is missing: the Pod is
        // (re)created under that name, and the builders set it before the Pod exists.
        if (pod == null
                && annotated != null
                && act
                && !annotated.equals(sb.getMetadata().getName())) {
            setSandboxAnnotation(client, sb, Keys.POD_NAME, null);
        }
        List<Pod> owned = ownedPods(sb);
        if (owned.size() == 1
                && (pod == null
                        || !Objects.equals(
                                pod.getMetadata().getUid(),
                                owned.get(0).getMetadata().getUid()))) {
            pod = owned.get(0);
            if (act && annotated != null && !annotated.equals(pod.getMetadata().getName())) {
                setSandboxAnnotation(client, sb, Keys.POD_NAME, null);
            }
        }
        if (owned.size() > 1) pod = owned.get(0);
        return new PodResult(pod, pod != null && Ownership.controlledBy(pod, sb), false, owned.size());
    }

    private PodResult reconcilePod(Sandbox sb, KubernetesClient client, List<String> errors, AtomicBoolean staleCopy) {
        PodResult found = lookupPod(sb, client, true);
        if (found.ownedCount() > 1) {
            LOG.atWarn()
                    .addKeyValue("sandbox", key(sb))
                    .addKeyValue("pods", found.ownedCount())
                    .log("MultiplePods: refusing to choose or create a Pod");
            return found;
        }
        Pod pod = found.pod();
        String ns = sb.getMetadata().getNamespace();
        if (sb.getSpec().suspended()) {
            if (pod != null && found.owned() && pod.getMetadata().getDeletionTimestamp() == null) {
                try {
                    client.pods()
                            .inNamespace(ns)
                            .withName(pod.getMetadata().getName())
                            .delete();
                    LOG.atInfo()
                            .addKeyValue("sandbox", key(sb))
                            .addKeyValue("pod", pod.getMetadata().getName())
                            .log("suspend: deleted pod");
                } catch (KubernetesClientException e) {
                    if (!Kube.notFound(e))
                        errors.add("delete pod \"" + pod.getMetadata().getName() + "\": " + Kube.message(e));
                }
            } else if (pod != null && !found.owned()) {
                LOG.atInfo()
                        .addKeyValue("sandbox", key(sb))
                        .addKeyValue("pod", pod.getMetadata().getName())
                        .log("suspend: pod is not owned by this sandbox; not deleting it");
            }
            if (annotation(sb, Keys.POD_NAME) != null) setSandboxAnnotation(client, sb, Keys.POD_NAME, null);
            return found;
        }
        if (pod != null) return reconcileExistingPod(sb, pod, client, errors, staleCopy);

        Pod desired = DesiredPod.build(sb);
        // The Pods of one pool's members share their spec's JSON (a pool member's Pod spec is its template's)
        String body = DesiredPod.specIsTemplates(sb)
                ? CreateBody.of(desired, podSpecs.json(desired.getSpec()))
                : client.getKubernetesSerialization().asJson(desired);
        try {
            // Its echo sets off no reconcile, even when it overtakes the create's response.
            Pod created =
                    pods.eventFilteringUpdateAndCacheResource(desired, d -> CreateRequests.create(client, d, body));
            LOG.atInfo()
                    .addKeyValue("sandbox", key(sb))
                    .addKeyValue("pod", created.getMetadata().getName())
                    .log("created pod");
            if (!sb.getMetadata().getName().equals(annotation(sb, Keys.POD_NAME))
                    && !setSandboxAnnotation(
                            client, sb, Keys.POD_NAME, created.getMetadata().getName())) {
                staleCopy.set(true);
            }
            return new PodResult(created, true, false, 1);
        } catch (KubernetesClientException e) {
            if (Kube.conflict(e)) {
                Pod existing = client.pods()
                        .inNamespace(ns)
                        .withName(desired.getMetadata().getName())
                        .get();
                if (existing != null) return reconcileExistingPod(sb, existing, client, errors, staleCopy);
            }
            errors.add("create pod \"" + desired.getMetadata().getName() + "\": " + Kube.message(e));
            return new PodResult(null, false, false, 0);
        }
    }

    private PodResult reconcileExistingPod(
            Sandbox sb, Pod pod, KubernetesClient client, List<String> errors, AtomicBoolean staleCopy) {
        String name = pod.getMetadata().getName();
        OwnerReference ctl = Ownership.controllerOf(pod);
        boolean adopt = false;
        if (ctl != null && !ctl.getUid().equals(sb.getMetadata().getUid())) {
            if (annotation(sb, Keys.POD_NAME) != null) setSandboxAnnotation(client, sb, Keys.POD_NAME, null);
            errors.add("pod \"" + name + "\" is owned by " + Ownership.describe(ctl) + ", not by sandbox \""
                    + sb.getMetadata().getName() + "\"");
            return new PodResult(pod, false, false, 0);
        }
        if (ctl == null) {
            String hash = NameHash.of(sb.getMetadata().getName());
            if (!Ownership.adoptable(pod, hash)) {
                errors.add("cannot adopt unowned pod \"" + name + "\": it has neither label " + Keys.ADOPTABLE
                        + "=true nor " + Keys.SANDBOX_NAME_HASH + "=" + hash);
                return new PodResult(pod, false, false, 0);
            }
            adopt = true;
        }
        DesiredPod.PodMetadata md = DesiredPod.syncedMetadata(sb, pod);
        Pod current = pod;
        if (md != null || adopt) {
            JsonPatch patch = new JsonPatch();
            if (md != null) {
                patch.map("/metadata/labels", pod.getMetadata().getLabels(), md.labels());
                patch.map("/metadata/annotations", pod.getMetadata().getAnnotations(), md.annotations());
            }
            if (adopt)
                patch.add(
                        "/metadata/ownerReferences",
                        withController(pod.getMetadata().getOwnerReferences(), sb));
            try {
                // Cached, so a reconcile that starts before this write's event arrives does not send the
                // same patch again; and that event sets off no reconcile, even when it overtakes the
                // response.
                current = pods.eventFilteringUpdateAndCacheResource(pod, p -> Kube.patch(client, p, patch));
                if (adopt)
                    LOG.atInfo()
                            .addKeyValue("sandbox", key(sb))
                            .addKeyValue("pod", name)
                            .log("adopted pod");
            } catch (KubernetesClientException e) {
                if (!adopt && Kube.refusedAsStale(e, patch)) {
                    staleCopy.set(true);
                    return new PodResult(pod, true, false, 1);
                }
                errors.add("patch pod \"" + name + "\": " + Kube.message(e));
                return new PodResult(pod, !adopt, false, adopt ? 0 : 1);
            }
        }
        if (annotation(sb, Keys.POD_NAME) == null && !setSandboxAnnotation(client, sb, Keys.POD_NAME, name))
            staleCopy.set(true);
        return new PodResult(current, true, false, 1);
    }

    // ---- Service (§2.7) ----------------------------------------------------------------------

    private ServiceResult reconcileService(
            Sandbox sb, SandboxStatus st, KubernetesClient client, List<String> errors, AtomicBoolean staleCopy) {
        Boolean want = sb.getSpec().getService();
        String ns = sb.getMetadata().getNamespace();
        String name = sb.getMetadata().getName();
        Service svc = services.get(new ResourceID(name, ns)).orElse(null);
        if (svc == null && Boolean.TRUE.equals(want)) {
            svc = client.services().inNamespace(ns).withName(name).get();
        }
        if (svc == null) {
            if (!Boolean.TRUE.equals(want)) {
                clearService(st);
                return new ServiceResult(false, false);
            }
            try {
                services.eventFilteringUpdateAndCacheResource(
                        DesiredService.build(sb), d -> CreateRequests.create(client, d));
                setService(st, name, ns);
                return new ServiceResult(true, true);
            } catch (KubernetesClientException e) {
                svc = Kube.conflict(e)
                        ? client.services().inNamespace(ns).withName(name).get()
                        : null;
                if (svc == null) {
                    errors.add("create service \"" + name + "\": " + Kube.message(e));
                    clearService(st);
                    return new ServiceResult(false, false);
                }
            }
        }
        OwnerReference ctl = Ownership.controllerOf(svc);
        boolean owned = ctl != null && ctl.getUid().equals(sb.getMetadata().getUid());
        if (Boolean.FALSE.equals(want)) {
            if (owned) {
                try {
                    client.services().inNamespace(ns).withName(name).delete();
                } catch (KubernetesClientException e) {
                    if (!Kube.notFound(e)) errors.add("delete service \"" + name + "\": " + Kube.message(e));
                }
            }
            clearService(st);
            return new ServiceResult(false, false);
        }
        if (ctl != null && !owned) {
            errors.add("service \"" + name + "\" is owned by " + Ownership.describe(ctl) + ", not by sandbox \"" + name
                    + "\"");
            return new ServiceResult(true, false);
        }
        Service desired = DesiredService.build(sb);
        if (ctl == null) {
            if (want == null) {
                clearService(st);
                return new ServiceResult(false, false);
            }
            String hash = NameHash.of(name);
            if (!Ownership.adoptable(svc, hash)) {
                errors.add("cannot adopt unowned service \"" + name + "\": it has neither label " + Keys.ADOPTABLE
                        + "=true nor " + Keys.SANDBOX_NAME_HASH + "=" + hash);
                return new ServiceResult(true, false);
            }
            String clusterIP = svc.getSpec() == null ? null : svc.getSpec().getClusterIP();
            if (clusterIP != null && !clusterIP.isEmpty() && !"None".equals(clusterIP)) {
                errors.add("cannot adopt service \"" + name + "\": ClusterIP is \"" + clusterIP
                        + "\" (expected \"None\", field is immutable)");
                return new ServiceResult(true, false);
            }
            // A copy: svc is the informer's cached object, shared with every other reader.
            Service adopted = new ServiceBuilder(svc).build();
            Map<String, String> labels = new LinkedHashMap<>(
                    adopted.getMetadata().getLabels() == null
                            ? Map.of()
                            : adopted.getMetadata().getLabels());
            labels.put(Keys.SANDBOX_NAME_HASH, hash);
            adopted.getMetadata().setLabels(labels);
            adopted.getSpec().setSelector(desired.getSpec().getSelector());
            adopted.getSpec().setPorts(desired.getSpec().getPorts());
            adopted.getMetadata()
                    .setOwnerReferences(withController(adopted.getMetadata().getOwnerReferences(), sb));
            try {
                client.services().inNamespace(ns).resource(adopted).update();
                LOG.atInfo().addKeyValue("sandbox", key(sb)).log("adopted service");
            } catch (KubernetesClientException e) {
                errors.add("adopt service \"" + name + "\": " + Kube.message(e));
                return new ServiceResult(true, false);
            }
            setService(st, name, ns);
            return new ServiceResult(true, true);
        }
        // Owned: repair drift of the label and selector, and of ports only when service is explicitly true.
        JsonPatch patch = new JsonPatch();
        String hash = NameHash.of(name);
        patch.mapEntry("/metadata/labels", svc.getMetadata().getLabels(), Keys.SANDBOX_NAME_HASH, hash);
        if (!desired.getSpec().getSelector().equals(svc.getSpec().getSelector())) {
            patch.add("/spec/selector", desired.getSpec().getSelector());
        }
        if (Boolean.TRUE.equals(want)
                && !samePorts(svc.getSpec().getPorts(), desired.getSpec().getPorts())) {
            patch.add(
                    "/spec/ports",
                    desired.getSpec().getPorts() == null
                            ? List.of()
                            : desired.getSpec().getPorts());
        }
        if (!patch.isEmpty()) {
            try {
                Kube.patch(client, svc, patch);
            } catch (KubernetesClientException e) {
                if (Kube.refusedAsStale(e, patch)) staleCopy.set(true);
                else errors.add("patch service \"" + name + "\": " + Kube.message(e));
            }
        }
        setService(st, name, ns);
        return new ServiceResult(true, true);
    }

    private static boolean samePorts(List<ServicePort> have, List<ServicePort> want) {
        List<ServicePort> h = have == null ? List.of() : have;
        List<ServicePort> w = want == null ? List.of() : want;
        if (h.size() != w.size()) return false;
        for (int i = 0; i < h.size(); i++) {
            ServicePort a = h.get(i);
            ServicePort b = w.get(i);
            if (!Objects.equals(a.getName(), b.getName())
                    || !Objects.equals(a.getPort(), b.getPort())
                    || !Objects.equals(a.getProtocol(), b.getProtocol())
                    || !Objects.equals(a.getTargetPort(), b.getTargetPort())) {
                return false;
            }
        }
        return true;
    }

    private void setService(SandboxStatus st, String name, String ns) {
        st.setService(name);
        st.setServiceFQDN(DesiredService.fqdn(name, ns, clusterDomain));
    }

    private static void clearService(SandboxStatus st) {
        st.setService(null);
        st.setServiceFQDN(null);
    }

    // ---- Expiry (§2.8) -----------------------------------------------------------------------

    private UpdateControl<Sandbox> expire(Sandbox sb, SandboxStatus st, Context<Sandbox> ctx, Instant now) {
        KubernetesClient client = ctx.getClient();
        Long gen = sb.getMetadata().getGeneration();
        Condition ready = Conds.find(st.getConditions(), SandboxConditions.READY);
        if (ready == null || !SandboxConditions.REASON_EXPIRED.equals(ready.getReason())) {
            SandboxConditions.markExpired(st.getConditions(), gen, now);
            writeStatus(ctx, sb, st);
            LOG.atInfo().addKeyValue("sandbox", key(sb)).log("sandbox expired");
            return UpdateControl.<Sandbox>noUpdate().rescheduleAfter(Duration.ofMillis(1));
        }
        String ns = sb.getMetadata().getNamespace();
        String name = sb.getMetadata().getName();
        List<String> errors = new ArrayList<>();
        String podName = annotation(sb, Keys.POD_NAME) != null ? annotation(sb, Keys.POD_NAME) : name;
        try {
            Pod pod = client.pods().inNamespace(ns).withName(podName).get();
            if (pod != null && Ownership.controlledBy(pod, sb))
                client.pods().inNamespace(ns).withName(podName).delete();
        } catch (KubernetesClientException e) {
            if (!Kube.notFound(e)) errors.add("delete pod \"" + podName + "\": " + Kube.message(e));
        }
        try {
            Service svc = client.services().inNamespace(ns).withName(name).get();
            if (svc != null && Ownership.controlledBy(svc, sb))
                client.services().inNamespace(ns).withName(name).delete();
        } catch (KubernetesClientException e) {
            if (!Kube.notFound(e)) errors.add("delete service \"" + name + "\": " + Kube.message(e));
        }
        if (SandboxSpec.POLICY_DELETE.equals(sb.getSpec().getShutdownPolicy())) {
            try {
                client.resources(Sandbox.class).inNamespace(ns).withName(name).delete();
                LOG.atInfo().addKeyValue("sandbox", key(sb)).log("expired sandbox deleted (shutdownPolicy=Delete)");
            } catch (KubernetesClientException e) {
                if (!Kube.notFound(e)) throw new ReconcileException("delete sandbox: " + Kube.message(e));
            }
            return UpdateControl.noUpdate();
        }
        if (errors.isEmpty()) {
            SandboxStatus reset = new SandboxStatus();
            reset.setConditions(st.getConditions());
            st = reset;
        }
        SandboxConditions.markExpired(st.getConditions(), gen, now);
        writeStatus(ctx, sb, st);
        if (!errors.isEmpty()) throw new ReconcileException(String.join("; ", errors));
        return UpdateControl.noUpdate();
    }

    // ---- writes ------------------------------------------------------------------------------

    /** Merge patch of /status without a resourceVersion; skipped when nothing relevant changed. */
    private void writeStatus(Context<Sandbox> ctx, Sandbox sb, SandboxStatus st) {
        SandboxStatus current = written.current(sb, sb.getStatus());
        SandboxStatus old = current == null ? new SandboxStatus() : current;
        if (st.equals(old)) return;
        if (onlyNodeNameChanged(old, st) && !Conds.isTrue(st.getConditions(), SandboxConditions.READY)) return;
        Map<String, Object> s = new LinkedHashMap<>();
        // The whole status is replaced: an absent field is a cleared field.
        putIf(s, "serviceFQDN", st.getServiceFQDN());
        putIf(s, "service", st.getService());
        putIf(s, "conditions", st.getConditions());
        putIf(s, "selector", st.getSelector());
        putIf(s, "podIPs", st.getPodIPs() == null || st.getPodIPs().isEmpty() ? null : st.getPodIPs());
        putIf(s, "nodeName", st.getNodeName());
        try {
            written.write(sb, st, () -> Kube.patchStatus(ctx.getClient(), sb, new JsonPatch().add("/status", s)));
        } catch (KubernetesClientException e) {
            if (!Kube.notFound(e)) throw e;
        }
    }

    private static void putIf(Map<String, Object> m, String k, Object v) {
        if (v != null) m.put(k, v);
    }

    static boolean onlyNodeNameChanged(SandboxStatus old, SandboxStatus st) {
        if (Objects.equals(old.getNodeName(), st.getNodeName())) return false;
        SandboxStatus probe = new SandboxStatus(st);
        probe.setNodeName(old.getNodeName());
        return probe.equals(old);
    }

    /**
     * This pass's view of the Sandbox: its own copy of the metadata (which {@link
     * #setSandboxAnnotation} keeps current after each write, so later steps of the pass see it),
     * spec and status shared with the informer cache and only read.
     */
    private static Sandbox withOwnMetadata(Sandbox cached) {
        Sandbox sb = new Sandbox();
        sb.setMetadata(new ObjectMetaBuilder(cached.getMetadata()).build());
        sb.setSpec(cached.getSpec());
        sb.setStatus(cached.getStatus());
        return sb;
    }

    /**
     * Writes one annotation and updates this pass's copy of the metadata to match. False when the
     * server refused it because our copy had no annotations and was stale ({@link Kube#patch}): the
     * caller retries the pass, since the newer version may be one the update filter drops.
     */
    private static boolean setSandboxAnnotation(KubernetesClient client, Sandbox sb, String key, String value) {
        JsonPatch patch = new JsonPatch()
                .mapEntry("/metadata/annotations", sb.getMetadata().getAnnotations(), key, value);
        if (patch.isEmpty()) return true;
        try {
            Kube.patch(client, sb, patch);
        } catch (KubernetesClientException e) {
            if (Kube.refusedAsStale(e, patch)) return false;
            // 404: gone; 422: the key was changed concurrently. Both resolve on the next pass.
            if (!Kube.notFound(e) && e.getCode() != 422) throw e;
        }
        Map<String, String> local = sb.getMetadata().getAnnotations() == null
                ? new HashMap<>()
                : new HashMap<>(sb.getMetadata().getAnnotations());
        if (value == null) local.remove(key);
        else local.put(key, value);
        sb.getMetadata().setAnnotations(local);
        return true;
    }

    private static List<OwnerReference> withController(List<OwnerReference> refs, Sandbox sb) {
        List<OwnerReference> out = new ArrayList<>();
        if (refs != null) for (OwnerReference r : refs) if (!Boolean.TRUE.equals(r.getController())) out.add(r);
        out.add(Ownership.controllerRef(sb));
        return out;
    }

    static String annotation(Sandbox sb, String key) {
        Map<String, String> a = sb.getMetadata().getAnnotations();
        return a == null ? null : a.get(key);
    }

    private static String key(Sandbox sb) {
        return sb.getMetadata().getNamespace() + "/" + sb.getMetadata().getName();
    }
}
