//! MAYO-RS placeholder (filled in below).
