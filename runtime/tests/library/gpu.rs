//! How the GPU tests find their GPU: they skip, saying why, on a machine without a driver
//! or a device; any other failure of a GPU that is there fails them, and with
//! `FERMAT_REQUIRE_GPU=1` so does a missing GPU.

use fermat::{Backend, Error};

/// `make(Backend::Gpu(0))`, or `None` (after saying why) where there is no GPU to use.
pub fn on_gpu<T>(make: impl FnOnce(Backend) -> Result<T, Error>) -> Option<T> {
    match make(Backend::Gpu(0)) {
        Ok(made) => Some(made),
        Err(Error::Gpu(e))
            if e.is_absence() && std::env::var("FERMAT_REQUIRE_GPU").as_deref() != Ok("1") =>
        {
            eprintln!("skipping: {e}");
            None
        }
        Err(e) => panic!("the GPU is there but does not work: {e}"),
    }
}
