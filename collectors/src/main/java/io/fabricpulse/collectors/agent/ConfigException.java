package io.fabricpulse.collectors.agent;

import java.util.List;

/** An unusable collector configuration: every problem as {@code file:line: key: what is wrong}. */
public final class ConfigException extends Exception {
  private final List<String> problems;

  public ConfigException(List<String> problems) {
    super(String.join("\n", problems));
    this.problems = List.copyOf(problems);
  }

  public List<String> problems() {
    return problems;
  }
}
