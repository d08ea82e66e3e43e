// File-local helpers shared by the structuring files (structure.cpp, conditions.cpp).
#pragma once

#include <vector>

#include "decompiler/decoder.hpp"

namespace glassbox::decompiler {

// Whether an operation leaves no source of its own: a test may run it (an and/or operand, a
// pure test that continues a condition chain).
inline bool is_pure(Op op) {
  switch (op) {
    case Op::PopTop:
    case Op::StoreName:
    case Op::StoreAttr:
    case Op::StoreSubscr:
    case Op::StoreSlice:
    case Op::DeleteName:
    case Op::DeleteAttr:
    case Op::DeleteSubscr:
    case Op::ReturnValue:
    case Op::ReturnConst:
    case Op::RaiseVarargs:
    case Op::Reraise:
    case Op::Jump:
    case Op::ForIter:
    case Op::EndFor:
    case Op::ImportName:
    case Op::ImportFrom:
    case Op::ImportStar:
    case Op::UnpackSequence:
    case Op::UnpackEx:
    case Op::BeforeWith:
    case Op::BeforeAsyncWith:
    case Op::PushExcInfo:
    case Op::PopExcept:
    case Op::ListAppend:
    case Op::SetAdd:
    case Op::MapAdd:
    case Op::YieldValue:
    case Op::Unknown:
    case Op::MakeFunction:
    case Op::LoadBuildClass:
    case Op::GetIter:
    case Op::Send:
    case Op::WithExceptStart:
    case Op::CheckExcMatch:
    case Op::SetupFinally:
    case Op::SetupWith:
    case Op::PopBlock:
    case Op::ReturnGenerator:
      return false;
    default:
      return true;
  }
}

// Whether the return at `at` is a written `return` leaving with statements (structure.cpp).
bool written_return_leaving_with(const std::vector<Operation>& ops, int at);

}  // namespace glassbox::decompiler
