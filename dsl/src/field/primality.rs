//! Primality tests (placeholder: being written).
