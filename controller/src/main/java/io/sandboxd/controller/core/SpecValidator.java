package io.sandboxd.controller.core;

import io.fabric8.kubernetes.api.model.PersistentVolumeClaimTemplate;
import io.sandboxd.controller.model.Sandbox;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Specs that no retry can fix (ours, not upstream): reported as Ready=False/InvalidConfiguration
 * with what to change, and not requeued. Returns null when the spec is usable.
 */
public final class SpecValidator {
    private SpecValidator() {}

    private static final Pattern DNS1035 = Pattern.compile("[a-z]([-a-z0-9]*[a-z0-9])?");
    private static final Pattern DNS1123_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
    private static final Pattern DNS1123_SUBDOMAIN =
            Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

    public static boolean isDns1035Label(String s) {
        return s.length() <= 63 && DNS1035.matcher(s).matches();
    }

    public static boolean isDns1123Label(String s) {
        return s.length() <= 63 && DNS1123_LABEL.matcher(s).matches();
    }

    public static boolean isDns1123Subdomain(String s) {
        return s.length() <= 253 && DNS1123_SUBDOMAIN.matcher(s).matches();
    }

    public static String validate(Sandbox sb) {
        String name = sb.getMetadata().getName();
        var spec = sb.getSpec();
        if (spec == null
                || spec.getPodTemplate() == null
                || spec.getPodTemplate().getSpec() == null) {
            return "spec.podTemplate.spec is required; set it to the Pod spec to run";
        }
        var ps = spec.getPodTemplate().getSpec();
        if (ps.getContainers() == null || ps.getContainers().isEmpty()) {
            return "spec.podTemplate.spec.containers is empty; add at least one container";
        }
        if (Boolean.TRUE.equals(spec.getService()) && !isDns1035Label(name)) {
            return "spec.service is true but the Sandbox name \"" + name + "\" (" + name.length()
                    + " characters) is not a valid Service name (a DNS-1035 label: at most 63 characters, lowercase letters,"
                    + " digits and '-', starting with a letter); rename the Sandbox or set spec.service to false";
        }
        if (spec.getOperatingMode() != null && !SandboxModes.valid(spec.getOperatingMode())) {
            return "spec.operatingMode \"" + spec.getOperatingMode() + "\" is not one of Running, Suspended";
        }
        if (spec.getShutdownPolicy() != null && !List.of("Delete", "Retain").contains(spec.getShutdownPolicy())) {
            return "spec.shutdownPolicy \"" + spec.getShutdownPolicy() + "\" is not one of Delete, Retain";
        }
        if (spec.getShutdownTime() != null && Expiry.parse(spec.getShutdownTime()) == null) {
            return "spec.shutdownTime \"" + spec.getShutdownTime() + "\" is not an RFC 3339 date-time";
        }
        List<PersistentVolumeClaimTemplate> vcts = spec.getVolumeClaimTemplates();
        if (vcts != null) {
            Set<String> seen = new HashSet<>();
            for (int i = 0; i < vcts.size(); i++) {
                var vct = vcts.get(i);
                String vname =
                        vct.getMetadata() == null ? null : vct.getMetadata().getName();
                if (vname == null || vname.isEmpty()) {
                    return "spec.volumeClaimTemplates[" + i
                            + "].metadata.name is empty; give every claim template a name";
                }
                if (!seen.add(vname)) {
                    return "spec.volumeClaimTemplates has the name \"" + vname + "\" twice; make the names unique";
                }
                String pvc = DesiredPvc.name(vname, name);
                if (!isDns1123Subdomain(pvc)) {
                    return "PVC name \"" + pvc + "\" from spec.volumeClaimTemplates[" + i
                            + "] is not a valid object name"
                            + " (DNS-1123 subdomain, at most 253 characters); shorten the template or Sandbox name";
                }
            }
        }
        return null;
    }

    /** Helper for operatingMode values. */
    static final class SandboxModes {
        static boolean valid(String m) {
            return "Running".equals(m) || "Suspended".equals(m);
        }
    }
}
