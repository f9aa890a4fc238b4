//! Small bottom-layer helpers shared by the file formats and readers: opening input files
//! safely ([`files`]) and telling what a file is by its first bytes ([`kind`]), the checksums of the `.qbk` and `.qtb` formats ([`checksum`]), the seeded
//! random generator ([`rng`]), quoting user input in part ([`text`]) and a progress-reporting trait the library uses instead of a
//! terminal progress bar ([`progress`]), and the check of the worker-thread count the environment gives ([`threads`]). Nothing here depends on any other module of the crate. The module is private: what users
//! need of it is re-exported as [`crate::fs`], [`crate::Progress`], [`crate::Rng`] and [`crate::check_worker_threads_env`].

#![warn(missing_docs)]

pub mod checksum;
pub mod files;
pub mod kind;
pub mod memory;
pub mod pressure;
pub mod progress;
pub mod rng;
pub mod text;
pub mod threads;
