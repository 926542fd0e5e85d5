package io.sandboxd.controller.core;

import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

/** Deep copies and canonical JSON through fabric8's own (Jackson 3) serialization. */
public final class Copies {
  private Copies() {}

  private static final KubernetesSerialization SER = new KubernetesSerialization();

  public static <T> T deep(T obj) {
    return obj == null ? null : SER.clone(obj);
  }

  public static String json(Object obj) {
    return SER.asJson(obj);
  }
}
