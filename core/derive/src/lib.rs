//! `#[derive(Read)]`: reads a JSON shape for `pageai_core::json::Read` by the type's own `#[serde(...)]`
//! attributes, so no rule of a shape is written twice.
//!
//! serde_derive's `Deserialize` puts a visitor per shape in the browser package, several kilobytes each;
//! the code this derive writes per shape is a table of the member names and a match from a member's index
//! to its type's `Read`. Everything else (the object check, an unknown member, a missing field's words, the
//! pointer of a failure) lives once in core's `json::read`, out of line.
//!
//! What it reads of serde's attributes: on the type `rename_all`, `rename_all_fields`, `rename`,
//! `deny_unknown_fields`, `default`, `transparent` and `from`; on a field or variant `rename`, `default`
//! (`default = "path"`), `skip` / `skip_deserializing`, and `deserialize_with = "null_as_default"` (core's
//! rule of that name: null reads as the field's default). A field read by any other `deserialize_with` (or
//! `with`) needs `#[read(...)]` to say how it is read instead: `#[read(null_as_default)]` or
//! `#[read(with = "path")]` (a `fn(At) -> Result<T, Error>`). Anything else that
//! changes how serde reads (`tag`, `untagged`, `flatten`, `alias`, `other`, `try_from`, tuple variants) is
//! refused at compile time: core reads internally tagged enums through `json::tagged`.

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as Tokens};
use quote::{format_ident, quote};
use syn::{Attribute, Data, DeriveInput, Error, Fields, LitStr, Result, parse_macro_input};

/// Implements `pageai_core::json::Read` for a struct or an enum by its serde attributes (see the crate
/// docs).
#[proc_macro_derive(Read, attributes(read))]
pub fn derive_read(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand(&input).unwrap_or_else(|e| e.to_compile_error()).into()
}

/// serde's attributes of the type.
#[derive(Default)]
struct Container {
    rename: Option<String>,
    rename_all: Option<String>,
    rename_all_fields: Option<String>,
    deny: bool,
    default: bool,
    transparent: bool,
    from: Option<syn::Type>,
}

/// How a field is read when it is missing or null.
enum FieldDefault {
    /// It must be there.
    None,
    /// `Default::default()`.
    Trait,
    /// A function's value.
    Path(syn::ExprPath),
}

/// serde's (and `#[read]`'s) attributes of a field or variant.
struct Member {
    rename: Option<String>,
    default: FieldDefault,
    skip: bool,
    /// `deserialize_with`: the field needs `#[read(...)]`.
    custom: bool,
    null_as_default: bool,
    with: Option<syn::ExprPath>,
    rename_all: Option<String>,
}

fn string(meta: &syn::meta::ParseNestedMeta) -> Result<String> {
    Ok(meta.value()?.parse::<LitStr>()?.value())
}

/// Consumes the value of a key this derive does not read (a serializing one).
fn skip_value(meta: &syn::meta::ParseNestedMeta) -> Result<()> {
    if meta.input.peek(syn::Token![=]) {
        meta.value()?.parse::<LitStr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        meta.parse_nested_meta(|inner| skip_value(&inner))?;
    }
    Ok(())
}

fn refused(meta: &syn::meta::ParseNestedMeta, key: &str) -> Error {
    meta.error(format!("#[derive(Read)] does not read `serde({key})`; see pageai-core-derive's docs"))
}

fn container(attrs: &[Attribute]) -> Result<Container> {
    let mut out = Container::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        attr.parse_nested_meta(|meta| {
            let key = meta.path.get_ident().map(ToString::to_string).unwrap_or_default();
            match key.as_str() {
                "rename" if meta.input.peek(syn::Token![=]) => out.rename = Some(string(&meta)?),
                "rename_all" if meta.input.peek(syn::Token![=]) => out.rename_all = Some(string(&meta)?),
                "rename_all_fields" if meta.input.peek(syn::Token![=]) => out.rename_all_fields = Some(string(&meta)?),
                "deny_unknown_fields" => out.deny = true,
                "default" if !meta.input.peek(syn::Token![=]) => out.default = true,
                "transparent" => out.transparent = true,
                "from" => out.from = Some(syn::parse_str(&string(&meta)?)?),
                "into" | "bound" | "expecting" | "crate" => skip_value(&meta)?,
                other => return Err(refused(&meta, other)),
            }
            Ok(())
        })?;
    }
    Ok(out)
}

fn member(attrs: &[Attribute]) -> Result<Member> {
    let mut out = Member {
        rename: None,
        default: FieldDefault::None,
        skip: false,
        custom: false,
        null_as_default: false,
        with: None,
        rename_all: None,
    };
    for attr in attrs {
        if attr.path().is_ident("serde") {
            attr.parse_nested_meta(|meta| {
                let key = meta.path.get_ident().map(ToString::to_string).unwrap_or_default();
                match key.as_str() {
                    "rename" if meta.input.peek(syn::Token![=]) => out.rename = Some(string(&meta)?),
                    "rename_all" if meta.input.peek(syn::Token![=]) => out.rename_all = Some(string(&meta)?),
                    "default" if meta.input.peek(syn::Token![=]) => {
                        out.default = FieldDefault::Path(syn::parse_str(&string(&meta)?)?)
                    }
                    "default" => out.default = FieldDefault::Trait,
                    "skip" | "skip_deserializing" => out.skip = true,
                    // core's one rule of that name (page.rs): null reads as the field's default.
                    "deserialize_with" if meta.input.fork().parse::<syn::Token![=]>().is_ok() => {
                        match string(&meta)?.as_str() {
                            "null_as_default" => out.null_as_default = true,
                            _ => out.custom = true,
                        }
                    }
                    "deserialize_with" | "with" => {
                        skip_value(&meta)?;
                        out.custom = true;
                    }
                    "skip_serializing" | "skip_serializing_if" | "serialize_with" | "getter" | "bound" => {
                        skip_value(&meta)?
                    }
                    other => return Err(refused(&meta, other)),
                }
                Ok(())
            })?;
        } else if attr.path().is_ident("read") {
            attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("null_as_default") {
                    out.null_as_default = true;
                } else if meta.path.is_ident("with") {
                    out.with = Some(syn::parse_str(&string(&meta)?)?);
                } else {
                    return Err(meta.error("#[read] takes `null_as_default` or `with = \"path\"`"));
                }
                Ok(())
            })?;
        }
    }
    Ok(out)
}

/// serde's `RenameRule` applied to a field (`snake_case` in Rust) or a variant (`PascalCase`).
fn renamed(name: &str, rule: Option<&str>, variant: bool, span: Span) -> Result<String> {
    let Some(rule) = rule else { return Ok(name.to_string()) };
    let snake = match variant {
        true => {
            let mut snake = String::new();
            for (i, c) in name.char_indices() {
                if c.is_uppercase() && i > 0 {
                    snake.push('_');
                }
                snake.push(c.to_ascii_lowercase());
            }
            snake
        }
        false => name.to_string(),
    };
    let pascal: String = snake
        .split('_')
        .map(|part| {
            let mut chars = part.chars();
            chars.next().map(|c| c.to_ascii_uppercase().to_string() + chars.as_str()).unwrap_or_default()
        })
        .collect();
    Ok(match rule {
        "lowercase" if variant => name.to_ascii_lowercase(),
        "UPPERCASE" => name.to_ascii_uppercase(),
        "lowercase" => name.to_string(),
        "PascalCase" if variant => name.to_string(),
        "PascalCase" => pascal,
        "camelCase" => {
            let mut chars = pascal.chars();
            chars.next().map(|c| c.to_ascii_lowercase().to_string() + chars.as_str()).unwrap_or_default()
        }
        "snake_case" => snake,
        "SCREAMING_SNAKE_CASE" => snake.to_ascii_uppercase(),
        "kebab-case" => snake.replace('_', "-"),
        "SCREAMING-KEBAB-CASE" => snake.to_ascii_uppercase().replace('_', "-"),
        other => return Err(Error::new(span, format!("unknown rename rule `{other}`"))),
    })
}

fn expand(input: &DeriveInput) -> Result<Tokens> {
    let c = container(&input.attrs)?;
    let name = &input.ident;
    let shown = c.rename.clone().unwrap_or_else(|| name.to_string());
    let mut generics = input.generics.clone();
    for param in generics.type_params_mut() {
        param.bounds.push(syn::parse_quote!(::pageai_core::json::Read));
    }
    let (impl_generics, type_generics, where_clause) = generics.split_for_impl();
    let body = match (&input.data, &c.from) {
        (_, Some(from)) => quote! {
            <#from as ::pageai_core::json::Read>::read(at).map(::core::convert::From::from)
        },
        (Data::Struct(data), None) => match &data.fields {
            Fields::Named(named) if !c.transparent => {
                let fields: Vec<_> = named.named.iter().collect();
                let build = object(
                    quote!(Self),
                    &fields,
                    c.rename_all.as_deref(),
                    c.deny,
                    c.default,
                    &format!("struct {shown}"),
                )?;
                quote! { let at = at; #build }
            }
            Fields::Named(named) => {
                let field = named.named.first().and_then(|f| f.ident.as_ref());
                quote! { Ok(Self { #field: ::pageai_core::json::Read::read(at)? }) }
            }
            Fields::Unnamed(unnamed) if unnamed.unnamed.len() == 1 => {
                quote! { Ok(Self(::pageai_core::json::Read::read(at)?)) }
            }
            _ => return Err(Error::new_spanned(name, "#[derive(Read)] reads named structs and newtypes")),
        },
        (Data::Enum(data), None) => enumeration(data, &c, &shown)?,
        (Data::Union(_), None) => return Err(Error::new_spanned(name, "#[derive(Read)] does not read unions")),
    };
    Ok(quote! {
        // The forget of an empty slot (see `object`) is there for every type alike, `Drop` or not.
        #[allow(clippy::forget_non_drop)]
        impl #impl_generics ::pageai_core::json::Read for #name #type_generics #where_clause {
            fn read(at: ::pageai_core::json::read::At<'_>) -> ::core::result::Result<Self, ::pageai_core::json::read::Error> {
                #body
            }
        }
    })
}

/// The reading of an object into `ctor { fields }`, for a struct or a struct variant; `at` is in scope.
fn object(
    ctor: Tokens,
    fields: &[&syn::Field],
    rule: Option<&str>,
    deny: bool,
    container_default: bool,
    expecting: &str,
) -> Result<Tokens> {
    let mut names = Vec::new();
    let mut slots = Vec::new();
    let mut arms = Vec::new();
    let mut inits = Vec::new();
    for field in fields {
        let Some(ident) = &field.ident else { return Err(Error::new_spanned(field, "a named field")) };
        let m = member(&field.attrs)?;
        let ty = &field.ty;
        let default = match (&m.default, container_default) {
            (FieldDefault::Path(path), _) => quote!(#path()),
            (FieldDefault::Trait, _) => quote!(::core::default::Default::default()),
            (FieldDefault::None, true) => quote!(__default.#ident),
            (FieldDefault::None, false) => quote!(),
        };
        if m.skip {
            let value = match m.default {
                FieldDefault::None if !container_default => quote!(::core::default::Default::default()),
                _ => default,
            };
            inits.push(quote!(#ident: #value));
            continue;
        }
        let unraw = ident.to_string().trim_start_matches("r#").to_string();
        let wire = match m.rename {
            Some(rename) => rename,
            None => renamed(&unraw, rule, false, ident.span())?,
        };
        let index = names.len();
        let slot = format_ident!("__field{}", index);
        names.push(wire.clone());
        let (slot_ty, read) = match (&m.with, m.null_as_default, m.custom) {
            (Some(with), _, _) => (quote!(#ty), quote!(#with(at)?)),
            (None, true, _) => (
                quote!(::core::option::Option<#ty>),
                quote!(<::core::option::Option<#ty> as ::pageai_core::json::Read>::read(at)?),
            ),
            (None, false, true) => {
                return Err(Error::new_spanned(field, "a field read by `deserialize_with` needs #[read(...)]"));
            }
            (None, false, false) => (quote!(#ty), quote!(<#ty as ::pageai_core::json::Read>::read(at)?)),
        };
        slots.push(quote!(let mut #slot: ::core::option::Option<#slot_ty> = ::core::option::Option::None;));
        // Each key comes once (a JSON object's keys are unique), so the slot is empty: forgetting what
        // `replace` returns keeps the drop of a previous value out of every shape's reader.
        arms.push(quote!(#index => ::core::mem::forget(#slot.replace(#read)),));
        let missing = match (default.is_empty(), m.null_as_default, m.custom || m.with.is_some()) {
            (false, true, _) => quote!(#slot.flatten().unwrap_or_else(|| #default)),
            (false, false, _) => {
                quote!(match #slot { ::core::option::Option::Some(v) => v, ::core::option::Option::None => #default })
            }
            (true, true, _) => {
                quote!(match #slot { ::core::option::Option::Some(v) => v.unwrap_or_default(), ::core::option::Option::None => return ::core::result::Result::Err(::pageai_core::json::read::missing(#wire)) })
            }
            (true, false, true) => {
                quote!(match #slot { ::core::option::Option::Some(v) => v, ::core::option::Option::None => return ::core::result::Result::Err(::pageai_core::json::read::missing(#wire)) })
            }
            (true, false, false) => {
                quote!(match #slot { ::core::option::Option::Some(v) => v, ::core::option::Option::None => <#ty as ::pageai_core::json::Read>::missing(#wire)? })
            }
        };
        inits.push(quote!(#ident: #missing));
    }
    let default = match container_default {
        true => quote!(let __default: Self = ::core::default::Default::default();),
        false => quote!(),
    };
    let arms = match arms.is_empty() {
        true => quote!(),
        false => quote!(match __index { #(#arms)* _ => {} }),
    };
    Ok(quote! {{
        const FIELDS: &[&str] = &[#(#names),*];
        #(#slots)*
        at.members(FIELDS, #deny, #expecting, &mut |__index, at| {
            #arms
            ::core::result::Result::Ok(())
        })?;
        #default
        ::core::result::Result::Ok(#ctor { #(#inits),* })
    }})
}

fn enumeration(data: &syn::DataEnum, c: &Container, shown: &str) -> Result<Tokens> {
    let mut names = Vec::new();
    let mut arms = Vec::new();
    let mut unit_only = true;
    for variant in &data.variants {
        let m = member(&variant.attrs)?;
        if m.skip {
            return Err(Error::new_spanned(variant, "#[derive(Read)] does not skip variants"));
        }
        let ident = &variant.ident;
        names.push(match m.rename {
            Some(rename) => rename,
            None => renamed(&ident.to_string(), c.rename_all.as_deref(), true, ident.span())?,
        });
        match &variant.fields {
            Fields::Unit => arms.push(quote!({ content.unit()?; ::core::result::Result::Ok(Self::#ident) })),
            Fields::Named(named) => {
                unit_only = false;
                let fields: Vec<_> = named.named.iter().collect();
                let rule = m.rename_all.as_deref().or(c.rename_all_fields.as_deref());
                let expecting = format!("struct variant {shown}::{ident}");
                let build = object(quote!(Self::#ident), &fields, rule, c.deny, false, &expecting)?;
                arms.push(quote!(content.struct_variant(&mut |at| #build)));
            }
            Fields::Unnamed(_) => {
                return Err(Error::new_spanned(variant, "#[derive(Read)] reads unit and struct variants"));
            }
        }
    }
    let last = data.variants.len().saturating_sub(1);
    if unit_only {
        let idents: Vec<_> = data.variants.iter().map(|v| &v.ident).collect();
        let indexes = 0..idents.len().saturating_sub(1);
        let (init, last_ident) = (idents.get(..last).unwrap_or(&[]), idents.get(last));
        let indexes = indexes.collect::<Vec<_>>();
        return Ok(quote! {
            const VARIANTS: &[&str] = &[#(#names),*];
            ::core::result::Result::Ok(match at.unit_variant(VARIANTS)? {
                #(#indexes => Self::#init,)*
                _ => Self::#last_ident,
            })
        });
    }
    let (arms_but_last, last_arm) = (arms.get(..last).unwrap_or(&[]), arms.get(last));
    let indexes = 0..last;
    Ok(quote! {
        const VARIANTS: &[&str] = &[#(#names),*];
        at.variant(VARIANTS, &mut |__index, content| match __index {
            #(#indexes => #arms_but_last,)*
            _ => #last_arm,
        })
    })
}
