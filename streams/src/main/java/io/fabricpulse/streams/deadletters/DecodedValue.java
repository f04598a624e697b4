package io.fabricpulse.streams.deadletters;

import io.fabricpulse.avro.DeadLetter;

/**
 * What {@link DecodeOrDeadLetter} made of one record's bytes: the decoded value (null for a
 * tombstone), or the dead letter of bytes it could not decode. Lives only between the decoding
 * processor and the split after it; never serialized.
 */
public final class DecodedValue<T> {

  private final T value;
  private final DeadLetter deadLetter;

  private DecodedValue(T value, DeadLetter deadLetter) {
    this.value = value;
    this.deadLetter = deadLetter;
  }

  static <T> DecodedValue<T> of(T value) {
    return new DecodedValue<>(value, null);
  }

  static <T> DecodedValue<T> refused(DeadLetter deadLetter) {
    return new DecodedValue<>(null, deadLetter);
  }

  /** True when the bytes could not be decoded: {@link #deadLetter} says why. */
  public boolean isRefused() {
    return deadLetter != null;
  }

  /** The decoded value; null for a tombstone or a refused record. */
  public T value() {
    return value;
  }

  /** The dead letter of a refused record; null otherwise. */
  public DeadLetter deadLetter() {
    return deadLetter;
  }
}
