//! Frame scanning: strict acceptance and lenient detection of frames in submitted text.
