package io.sandboxd.controller.standin;

import java.util.Locale;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What a Pod carries in a cluster beyond what its creator sent: the API server's defaults and the
 * service-account token volume on create, and a kubelet's status once it runs (every condition,
 * a status per container). The figures of a controller that caches Pods depend on that size.
 */
final class PodDefaults {
    private PodDefaults() {}

    /** The API server's defaulting of a new Pod (what `kubectl get pod -o json` shows of it). */
    static void onCreate(ObjectNode pod, String suffix) {
        ObjectNode spec = pod.withObjectProperty("spec");
        putIfAbsent(spec, "restartPolicy", "Always");
        putIfAbsent(spec, "dnsPolicy", "ClusterFirst");
        putIfAbsent(spec, "schedulerName", "default-scheduler");
        putIfAbsent(spec, "serviceAccountName", "default");
        putIfAbsent(spec, "serviceAccount", "default");
        putIfAbsent(spec, "preemptionPolicy", "PreemptLowerPriority");
        if (!spec.has("terminationGracePeriodSeconds")) spec.put("terminationGracePeriodSeconds", 30);
        if (!spec.has("enableServiceLinks")) spec.put("enableServiceLinks", true);
        if (!spec.has("priority")) spec.put("priority", 0);
        if (!spec.has("securityContext")) spec.putObject("securityContext");
        ArrayNode tolerations = spec.withArrayProperty("tolerations");
        for (String key : new String[] {"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"}) {
            tolerations
                    .addObject()
                    .put("key", key)
                    .put("operator", "Exists")
                    .put("effect", "NoExecute")
                    .put("tolerationSeconds", 300);
        }
        String volume = "kube-api-access-" + suffix;
        ObjectNode projected = spec.withArrayProperty("volumes")
                .addObject()
                .put("name", volume)
                .putObject("projected");
        projected.put("defaultMode", 420);
        ArrayNode sources = projected.putArray("sources");
        sources.addObject()
                .putObject("serviceAccountToken")
                .put("expirationSeconds", 3607)
                .put("path", "token");
        sources.addObject()
                .putObject("configMap")
                .put("name", "kube-root-ca.crt")
                .putArray("items")
                .addObject()
                .put("key", "ca.crt")
                .put("path", "ca.crt");
        sources.addObject()
                .putObject("downwardAPI")
                .putArray("items")
                .addObject()
                .put("path", "namespace")
                .putObject("fieldRef")
                .put("apiVersion", "v1")
                .put("fieldPath", "metadata.namespace");
        for (JsonNode c : spec.path("containers")) {
            ObjectNode container = (ObjectNode) c;
            putIfAbsent(container, "imagePullPolicy", "IfNotPresent");
            putIfAbsent(container, "terminationMessagePath", "/dev/termination-log");
            putIfAbsent(container, "terminationMessagePolicy", "File");
            if (!container.has("resources")) container.putObject("resources");
            for (JsonNode port : container.path("ports")) putIfAbsent((ObjectNode) port, "protocol", "TCP");
            container
                    .withArrayProperty("volumeMounts")
                    .addObject()
                    .put("name", volume)
                    .put("readOnly", true)
                    .put("mountPath", "/var/run/secrets/kubernetes.io/serviceaccount");
        }
    }

    /** A kubelet's status of a started Pod: every condition and a running status per container. */
    static void running(ObjectNode pod, ObjectNode status, String ip, String now) {
        status.put("phase", "Running");
        status.put("hostIP", "192.168.0.11");
        status.putArray("hostIPs").addObject().put("ip", "192.168.0.11");
        status.put("podIP", ip);
        status.putArray("podIPs").addObject().put("ip", ip);
        status.put("startTime", now);
        status.put("qosClass", "BestEffort");
        ArrayNode conds = status.putArray("conditions");
        for (String type :
                new String[] {"PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"}) {
            conds.addObject()
                    .put("type", type)
                    .put("status", "True")
                    .putNull("lastProbeTime")
                    .put("lastTransitionTime", now);
        }
        ArrayNode statuses = status.putArray("containerStatuses");
        for (JsonNode c : pod.path("spec").path("containers")) {
            String name = c.path("name").asString("");
            String id = hex(pod.path("metadata").path("uid").asString("") + name);
            ObjectNode s = statuses.addObject();
            s.put("name", name);
            s.put("image", c.path("image").asString(""));
            s.put("imageID", "docker.io/library/" + c.path("image").asString("") + "@sha256:" + id);
            s.put("containerID", "containerd://" + id);
            s.put("ready", true);
            s.put("started", true);
            s.put("restartCount", 0);
            s.putObject("state").putObject("running").put("startedAt", now);
            s.putObject("lastState");
            ArrayNode mounts = s.putArray("volumeMounts");
            for (JsonNode m : c.path("volumeMounts")) {
                ObjectNode mount = mounts.addObject()
                        .put("name", m.path("name").asString(""))
                        .put("mountPath", m.path("mountPath").asString(""));
                if (m.path("readOnly").asBoolean(false))
                    mount.put("readOnly", true).put("recursiveReadOnly", "Disabled");
            }
        }
    }

    private static void putIfAbsent(ObjectNode o, String field, String value) {
        if (!o.has(field)) o.put(field, value);
    }

    /** 64 hex digits derived from {@code s}: an ID of the length a runtime writes. */
    private static String hex(String s) {
        StringBuilder b = new StringBuilder(64);
        long h = s.hashCode();
        while (b.length() < 64) {
            h = h * 6364136223846793005L + 1442695040888963407L;
            b.append(String.format(Locale.ROOT, "%016x", h));
        }
        return b.substring(0, 64);
    }
}
