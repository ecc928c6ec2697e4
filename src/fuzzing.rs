//! Entry points and input decoders shared by the fuzz targets and the regression replay test.
