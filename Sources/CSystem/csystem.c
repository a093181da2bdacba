// Exists so SwiftPM builds this C target; all interfaces are in include/csystem.h.
