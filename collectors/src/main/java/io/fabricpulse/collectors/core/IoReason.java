package io.fabricpulse.collectors.core;

import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;

/**
 * Why an I/O operation failed, in the words of the operating system ({@code No such file or
 * directory}, {@code Permission denied}). {@link java.nio.file} exceptions carry only the path in
 * their message, so {@code "cannot read: " + e.getMessage()} would repeat the path and drop the
 * reason.
 */
public final class IoReason {
  private IoReason() {}

  /** The reason alone, without the path. */
  public static String of(IOException e) {
    if (e instanceof NoSuchFileException) {
      return "No such file or directory";
    }
    if (e instanceof AccessDeniedException) {
      return "Permission denied";
    }
    if (e instanceof NotDirectoryException) {
      return "Not a directory";
    }
    if (e instanceof FileSystemException fs && fs.getReason() != null) {
      return fs.getReason();
    }
    if (e instanceof CharacterCodingException) {
      return "not UTF-8 text";
    }
    return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
  }
}
