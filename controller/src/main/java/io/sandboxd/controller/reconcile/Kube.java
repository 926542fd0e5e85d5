package io.sandboxd.controller.reconcile;

import io.fabric8.kubernetes.client.KubernetesClientException;

/** fabric8 error classification shared by the reconcilers. */
final class Kube {
  private Kube() {}

  static boolean notFound(KubernetesClientException e) {
    return e.getCode() == 404;
  }

  static boolean conflict(KubernetesClientException e) {
    return e.getCode() == 409;
  }

  static String message(Exception e) {
    if (e instanceof KubernetesClientException k && k.getStatus() != null && k.getStatus().getMessage() != null) {
      return k.getStatus().getMessage();
    }
    return e.getMessage();
  }
}
