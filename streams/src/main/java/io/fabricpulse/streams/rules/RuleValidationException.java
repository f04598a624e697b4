package io.fabricpulse.streams.rules;

import java.util.List;

/** The rule files are invalid; {@link #problems()} lists every {@code file:line: key: problem}. */
public class RuleValidationException extends Exception {

  private final List<String> problems;

  public RuleValidationException(List<String> problems) {
    super(problems.size() + " problem(s) in alert rules:\n  " + String.join("\n  ", problems));
    this.problems = List.copyOf(problems);
  }

  public List<String> problems() {
    return problems;
  }
}
