package io.fabricpulse.collectors.core;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** What a parser returns: the records it could build and the input it had to skip. */
public final class ParseResult<T> {
  private final List<T> records = new ArrayList<>();
  private final List<Malformed> malformed = new ArrayList<>();

  public void add(T record) {
    records.add(record);
  }

  public void skip(String source, long line, String reason) {
    malformed.add(new Malformed(source, line, reason));
  }

  /** Keeps {@code other}'s skipped input, not its records (they were folded into another). */
  public void skipAll(ParseResult<?> other) {
    malformed.addAll(other.malformed);
  }

  public void addAll(ParseResult<? extends T> other) {
    records.addAll(other.records);
    malformed.addAll(other.malformed);
  }

  public List<T> records() {
    return Collections.unmodifiableList(records);
  }

  public List<Malformed> malformed() {
    return Collections.unmodifiableList(malformed);
  }
}
