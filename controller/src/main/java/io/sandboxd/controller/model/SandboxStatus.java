package io.sandboxd.controller.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public class SandboxStatus {
    private String serviceFQDN;
    private String service;
    private List<Condition> conditions = new ArrayList<>();
    private String selector;
    private List<String> podIPs;
    private String nodeName;

    public SandboxStatus() {}

    public SandboxStatus(SandboxStatus o) {
        if (o == null) return;
        serviceFQDN = o.serviceFQDN;
        service = o.service;
        conditions = new ArrayList<>();
        if (o.conditions != null) o.conditions.forEach(c -> conditions.add(Conds.copy(c)));
        selector = o.selector;
        podIPs = o.podIPs == null ? null : new ArrayList<>(o.podIPs);
        nodeName = o.nodeName;
    }

    public String getServiceFQDN() {
        return serviceFQDN;
    }

    public void setServiceFQDN(String serviceFQDN) {
        this.serviceFQDN = serviceFQDN;
    }

    public String getService() {
        return service;
    }

    public void setService(String service) {
        this.service = service;
    }

    public List<Condition> getConditions() {
        return conditions;
    }

    public void setConditions(List<Condition> conditions) {
        this.conditions = conditions;
    }

    public String getSelector() {
        return selector;
    }

    public void setSelector(String selector) {
        this.selector = selector;
    }

    public List<String> getPodIPs() {
        return podIPs;
    }

    public void setPodIPs(List<String> podIPs) {
        this.podIPs = podIPs;
    }

    public String getNodeName() {
        return nodeName;
    }

    public void setNodeName(String nodeName) {
        this.nodeName = nodeName;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof SandboxStatus s)) return false;
        return Objects.equals(serviceFQDN, s.serviceFQDN)
                && Objects.equals(service, s.service)
                && Conds.sameConditions(conditions, s.conditions)
                && Objects.equals(selector, s.selector)
                && Objects.equals(emptyToNull(podIPs), emptyToNull(s.podIPs))
                && Objects.equals(nodeName, s.nodeName);
    }

    @Override
    public int hashCode() {
        return Objects.hash(service, selector, nodeName);
    }

    private static List<String> emptyToNull(List<String> l) {
        return l == null || l.isEmpty() ? null : l;
    }
}
