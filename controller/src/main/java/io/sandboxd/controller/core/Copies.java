package io.sandboxd.controller.core;

import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

/** Deep copies and canonical JSON through fabric8's own (Jackson 3) serialization. */
public final class Copies {
    private Copies() {}

    private static final KubernetesSerialization SER = new KubernetesSerialization();

    public static <T> T deep(T obj) {
        return obj == null ? null : SER.clone(obj);
    }

    /** Element-wise: cloning a List whole would lose the element type to erasure. */
    public static <T> java.util.List<T> deepList(java.util.List<T> list) {
        if (list == null) return null;
        java.util.List<T> out = new java.util.ArrayList<>(list.size());
        for (T t : list) out.add(deep(t));
        return out;
    }

    public static String json(Object obj) {
        return SER.asJson(obj);
    }
}
