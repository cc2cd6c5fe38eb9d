//! relay transports (soon)
