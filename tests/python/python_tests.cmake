# The ringlab package's tests (tests/python/test_*.py, except the torch backend's and the bucket
# plans', which their own cmake files register). Included from python/CMakeLists.txt.
if(RINGLAB_PYTHON_HAS_NUMPY)
  ringlab_add_pytest(python_import ${CMAKE_CURRENT_LIST_DIR}/test_import.py)
endif()
