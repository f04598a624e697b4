package io.fabricpulse.app.status;

import java.util.function.Supplier;

/**
 * One part of the running pipeline the status page vouches for (Kafka answering, the streams
 * application running, the page's own feed reading), asked on every request of {@code /api/status}
 * and {@code /api/health}. A probe must be cheap: it reads state its component keeps, it does not
 * call out.
 *
 * @param name what the page calls it, e.g. {@code kafka}
 */
public record HealthCheck(String name, Supplier<Result> probe) {

  /**
   * @param detail one line for the operator; never a secret, never an exception message (those can
   *     carry one): a failing component says what state it is in
   */
  public record Result(boolean ok, String detail) {
    public static Result ok(String detail) {
      return new Result(true, detail);
    }

    public static Result failing(String detail) {
      return new Result(false, detail);
    }
  }

  /** The probe's answer; a probe that throws or answers nothing counts as failing. */
  Result run() {
    try {
      Result r = probe.get();
      return r != null ? r : Result.failing("the check gave no answer");
    } catch (RuntimeException e) {
      return Result.failing("the check itself failed (" + e.getClass().getSimpleName() + ")");
    }
  }
}
