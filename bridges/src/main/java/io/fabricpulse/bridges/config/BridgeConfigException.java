package io.fabricpulse.bridges.config;

import java.util.List;

/** An unusable bridge configuration: every problem as {@code file:line: key: what is wrong}. */
public final class BridgeConfigException extends Exception {
  private final List<String> problems;

  public BridgeConfigException(List<String> problems) {
    super(String.join("\n", problems));
    this.problems = List.copyOf(problems);
  }

  public List<String> problems() {
    return problems;
  }
}
